package secrets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/inventory"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// scaleSession: a strict synthetic cloud, connected as vtpmctl connects.
func scaleSession(t *testing.T, cfg scale.Config, setup ...func(*scale.Cloud)) (*scale.Cloud, *cloud.Session) {
	t.Helper()
	return scale.Session(t, cfg, setup...)
}

// TestAuditSecretsAllProjects: one call settles the release from the
// compute API (2.93: Zed), lists every project, audits each with its
// own token, and returns the key manager's secrets URL and the clients
// protect writes with.
func TestAuditSecretsAllProjects(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 30, Projects: 3, Hypervisors: 2, Others: 3})
	a, err := AuditSecrets(context.Background(), sess, AuditRequest{AllProjects: true, ServiceProject: DefaultServiceProject, ReadACLs: true})
	if err != nil {
		t.Fatal(err)
	}
	r := a.Result
	if a.Release.Release != nova.Zed || r.Summary.Guests != 30 || r.Summary.NotAuditable != 0 || len(a.Facts.Audited) != c.NumProjects() {
		t.Fatalf("release %s, summary %+v, audited %d of %d", a.Release.Release, r.Summary, len(a.Facts.Audited), c.NumProjects())
	}
	if a.Cloud != "scale" || a.SecretsURL != c.URL+"/key-manager/v1/secrets/" {
		t.Errorf("cloud %q, secrets URL %q", a.Cloud, a.SecretsURL)
	}
	if r.ConsumersNotRead != "" || a.Facts.API.HasConsumers() {
		t.Errorf("a 1.0 key manager: consumers %q, API %s", r.ConsumersNotRead, a.Facts.API)
	}
	// The clients are remembered: one token per project, not one per call.
	tokens := c.Stats().ByRoute["POST /identity/v3/auth/tokens"]
	for p := range a.Facts.Audited {
		for i := 0; i < 2; i++ {
			if km, err := a.KeyManager(context.Background(), p); err != nil || km == nil {
				t.Fatalf("project %s: %v", p, err)
			}
		}
	}
	if n := c.Stats().ByRoute["POST /identity/v3/auth/tokens"]; n != tokens {
		t.Errorf("%d more tokens asked for after the audit", n-tokens)
	}
}

// TestAuditSecretsTruncatedProjects: Keystone's list_limit cut the
// project list and said so. Before, an audit of every project audited the projects
// listed, said "not auditable 0" and exited 0: the rest were not looked
// at and nobody was told. Now the result says it is incomplete, why, and
// the audit fails on it; a project named on the command line is still
// found (asked of Keystone by name, not looked up in the cut list).
func TestAuditSecretsTruncatedProjects(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 30, Projects: 6, Hypervisors: 2, ProjectListLimit: 3})
	a, err := AuditSecrets(context.Background(), sess, AuditRequest{AllProjects: true})
	if err != nil {
		t.Fatal(err)
	}
	inc := a.Result.Incomplete.Failures()
	if len(inc) != 1 || inc[0].Kind != completeness.Truncated || !strings.Contains(inc[0].Detail, "at 3 project(s)") || len(a.Facts.Audited) != 3 {
		t.Fatalf("incomplete %v, audited %d of %d", a.Result.Incomplete, len(a.Facts.Audited), c.NumProjects())
	}
	last := fmt.Sprintf("proj-%04d", 5)
	a, err = AuditSecrets(context.Background(), sess, AuditRequest{Projects: []string{last}})
	if err != nil || len(a.Facts.Audited) != 1 {
		t.Fatalf("project %s: %v, audited %v", last, err, a.Facts.Audited)
	}
}

// TestAuditSecretsGivenInventory: report and plan verify pass the release
// they settled and the servers they listed: the service asks for neither
// again.
func TestAuditSecretsGivenInventory(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 12, Projects: 2, Hypervisors: 2})
	cc, _ := sess.Compute()
	ic, _ := sess.Image()
	inv, err := inventory.List(context.Background(), cc, ic, nova.Zed, inventory.Opts{AllTenants: true})
	if err != nil {
		t.Fatal(err)
	}
	c.Reset()
	rel, _ := nova.ResolveRelease(nova.ReleaseEvidence{Flag: nova.Zed})
	a, err := AuditSecrets(context.Background(), sess, AuditRequest{Resolved: &rel, Inventory: &inv, Projects: []string{"proj-0000", "service"}})
	if err != nil {
		t.Fatal(err)
	}
	for route, n := range c.Stats().ByRoute {
		if strings.Contains(route, "/servers") || strings.Contains(route, "/images") || strings.HasSuffix(route, "/acl") || strings.HasSuffix(route, "/compute/") {
			t.Errorf("%s asked %d times", route, n)
		}
	}
	if len(a.Facts.Audited) != 2 || a.Facts.ServiceProject == "" {
		t.Errorf("audited %v, service project %q", a.Facts.Audited, a.Facts.ServiceProject)
	}
}

// TestAuditSecretsErrors: what the request gets wrong is a typed error
// naming no flag; the command names its own.
func TestAuditSecretsErrors(t *testing.T) {
	_, sess := scaleSession(t, scale.Config{Guests: 4, Projects: 2, Hypervisors: 1})
	for _, c := range []struct {
		name  string
		req   AuditRequest
		check func(error) bool
		text  string
	}{
		{"unknown project", AuditRequest{Projects: []string{"nope"}}, func(err error) bool { var e *ProjectRefError; return errors.As(err, &e) && e.Ref == "nope" }, `no project named or with ID "nope"`},
		{"no consumers at 1.0", AuditRequest{NeedConsumers: true}, func(err error) bool { var e *ConsumersUnavailableError; return errors.As(err, &e) }, "before key-manager API 1.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := AuditSecrets(context.Background(), sess, c.req)
			if err == nil || !c.check(err) || !strings.Contains(err.Error(), c.text) || strings.Contains(err.Error(), "--") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestErrorTexts(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&ScopeError{}, "auditing every project needs to list Keystone projects, which needs the admin role"},
		{&ScopeError{Err: errors.New("listing projects (needs admin): 403")}, "listing projects (needs admin): 403"},
		{&ProjectRefError{Ref: "web", Matches: 2}, `2 projects are named "web"; use an ID`},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
