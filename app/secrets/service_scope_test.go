package secrets

import (
	"context"
	"reflect"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// TestAuditSecretsProjectScope: an admin's audit of named projects asked Nova for
// every project's servers and listed every guest, most "not audited".
// Now Nova is asked for the named project's servers only, the result
// holds that project's guests only, and a secret whose instance is not
// in that project's list cannot be proven gone by that list (Nova stores
// a secret in the project of whoever's request made it): Nova is asked by
// UUID about those instances only, and its 404s make them orphans.
func TestAuditSecretsProjectScope(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 40, Projects: 4, Hypervisors: 2, Orphans: 2})
	a, err := AuditSecrets(context.Background(), sess, AuditRequest{Projects: []string{"proj-0000"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Facts.Audited) != 1 {
		t.Fatalf("audited %v", a.Facts.Audited)
	}
	var project string
	for p := range a.Facts.Audited {
		project = p
	}
	if got, want := c.Stats().ServerLists, []string{"all_tenants=true&limit=1000&project_id=" + project}; !reflect.DeepEqual(got, want) {
		t.Errorf("server lists %q, want %q", got, want)
	}
	cfg, inProject := c.Config(), 0
	for i := 0; i < cfg.Guests; i++ {
		if scale.ProjectOf(cfg, i) == 2 {
			inProject++
		}
	}
	r := a.Result
	if r.Summary.Guests != inProject || r.Summary.Failed != 0 || r.Summary.NotAuditable != 0 {
		t.Errorf("summary %+v, want %d guests", r.Summary, inProject)
	}
	for _, g := range r.Guests {
		if g.ProjectID != project || g.NotAudited {
			t.Errorf("guest %s of project %s (not audited %v) in an audit of %s", g.ServerID, g.ProjectID, g.NotAudited, project)
		}
	}
	if r.Summary.Orphans != 2 || r.Summary.Undetermined != 0 {
		t.Errorf("orphans %d, undetermined %d: want 2 and 0 (proven gone by UUID)", r.Summary.Orphans, r.Summary.Undetermined)
	}
	for _, o := range r.Orphans {
		if o.Kind != vtpmsecret.OrphanGone {
			t.Errorf("orphan %s: %s %q", o.ID, o.Kind, o.Reason)
		}
	}
	if len(r.Incomplete) != 1 || r.Incomplete[0].Kind != completeness.Scope || len(r.Incomplete.Failures()) != 0 {
		t.Errorf("incomplete %v", r.Incomplete)
	}
	plan, err := PlanCleanup(context.Background(), sess, a, 4)
	if err != nil || plan.Deletes() != 2 {
		t.Errorf("cleanup plan: %d deletes, %v", plan.Deletes(), err)
	}
}
