package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// consumersCloud is secretsCloud at key-manager API 1.1: the versions
// document says so, and the list (asked for 1.1) carries each secret's
// consumers: the guest's secret has none, the orphan has Nova's.
func consumersCloud(t *testing.T) *fakecloud.Cloud {
	c := secretsCloud(t)
	c.OptionalRoutes("consumersCloud's: the commands read a part")
	defer c.OptionalRoutes("")
	// The audit lists the boot volumes: the fake's catalog has block storage.
	c.Handle(fakecloud.Volumes, fakecloud.JSON(200, `{"volumes":[]}`))
	c.Handle("GET /key-manager/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("OpenStack-API-Version", "key-manager 1.1")
		fakecloud.JSON(300, `{"versions":[{"id":"v1","status":"CURRENT","min_version":"1.0","max_version":"1.1"}]}`)(w, r)
	})
	c.Handle("GET /key-manager/v1/secrets", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("OpenStack-API-Version") != "key-manager 1.1" {
			fakecloud.JSON(400, `{"title":"the test expects the list asked for 1.1"}`)(w, r)
			return
		}
		fakecloud.JSON(200, fmt.Sprintf(`{"total":2,"secrets":[
{"name":"vTPM secret for instance %s","secret_ref":"%s/key-manager/v1/secrets/%s","creator_id":%q,"status":"ACTIVE","secret_type":"passphrase","created":"2026-01-01T00:00:00","consumers":[]},
{"name":"vTPM secret for instance %s","secret_ref":"%s/key-manager/v1/secrets/%s","creator_id":%q,"status":"ACTIVE","secret_type":"passphrase","created":"2026-01-01T00:00:00",
 "consumers":[{"service":"nova","resource_type":"instance","resource_id":%q,"created":"2026-01-02T00:00:00"}]}]}`,
			guestID, c.URL, secretID, fakecloud.UserID, goneID, c.URL, "bbbbbbbb-1111-2222-3333-444444444444", fakecloud.UserID, goneID))(w, r)
	})
	return c
}

// TestProtectRefusedBefore11: a key manager without microversions gets
// one line and exit 1, after its versions document only: no list, no write.
func TestProtectRefusedBefore11(t *testing.T) {
	c := secretsCloud(t) // fakecloud's versions document is Barbican's before 1.1
	out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "protect")
	want := "vtpmctl: secret consumers are not available before key-manager API 1.1 (Barbican 15, Zed); this cloud's key-manager API is 1.0\n"
	if code != 1 || errs != want || out != "" {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
	if n := c.Count("GET /key-manager/v1/") + c.Count("POST /key-manager"); n != 0 {
		t.Errorf("%d key manager requests past the versions document: %v", n, c.Requests)
	}
}

// TestProtectCommand: --dry-run writes nothing; the write is one POST
// with Nova's consumer for the guest, never for the orphan.
func TestProtectCommand(t *testing.T) {
	c := consumersCloud(t)
	var posted []string
	c.Handle("POST /key-manager/v1/secrets/*", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		fmt.Fprint(&b, r.URL.Path, " ", r.Header.Get("OpenStack-API-Version"), " ")
		buf := make([]byte, 512)
		n, _ := r.Body.Read(buf)
		b.Write(buf[:n])
		posted = append(posted, b.String())
		fakecloud.JSON(200, `{}`)(w, r)
	})
	out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "protect", "--dry-run")
	if code != 0 || len(posted) != 0 || !strings.Contains(out, "would register 1") || !strings.Contains(out, "undetermined: instance "+goneID) {
		t.Fatalf("dry run: exit %d, %d writes\n%s\n%s", code, len(posted), out, errs)
	}
	out, errs, code = runCLI(t, "--os-cloud", "fake", "secrets", "protect", "-f", "json")
	want := "/key-manager/v1/secrets/" + secretID + "/consumers key-manager 1.1 " + `{"service":"nova","resource_type":"instance","resource_id":"` + guestID + `"}`
	if code != 0 || len(posted) != 1 || posted[0] != want || !strings.Contains(out, `"registered": 1`) {
		t.Fatalf("exit %d, writes %q\n%s\n%s", code, posted, out, errs)
	}
	// a refused write: exit 1
	c.Handle("POST /key-manager/v1/secrets/*", fakecloud.JSON(403, `{"title":"Forbidden"}`))
	_, errs, code = runCLI(t, "--os-cloud", "fake", "secrets", "protect")
	if code != 1 || !strings.Contains(errs, "1 write(s) failed") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestAuditConsumersAndCleanupPlan: the audit shows the guest unprotected
// and counts it; the plan never deletes the protected orphan, and says
// how to release it.
func TestAuditConsumersAndCleanupPlan(t *testing.T) {
	c := consumersCloud(t)
	// Nova's word on the orphan's instance: every cell up, 404 to an admin
	c.Handle("GET /compute/v2.1/os-services [compute 2.69]", fakecloud.JSON(200, `{"services":[{"binary":"nova-compute","host":"devcloud","status":"enabled","state":"up"}]}`))
	c.Handle("GET /compute/v2.1/servers/"+goneID+" [compute 2.69]", fakecloud.JSON(404, `{"itemNotFound":{"code":404,"message":"Instance `+goneID+` could not be found."}}`))
	out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "audit", "-f", "json")
	if code != 0 || !strings.Contains(out, `"protection": "unprotected"`) || !strings.Contains(out, `"unprotected": 1`) || !strings.Contains(out, `"key_manager_api": "1.1"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, _ = runCLI(t, "--os-cloud", "fake", "secrets", "audit", "--cleanup-plan")
	if strings.Contains(out, "secret delete") && strings.Contains(out, "bbbbbbbb") && !strings.Contains(out, "# protected") ||
		!strings.Contains(out, "# protected, not deleted: bbbbbbbb-1111-2222-3333-444444444444 (instance "+goneID) ||
		!strings.Contains(out, "remove the consumer first if you are sure") || strings.Contains(out, "--force") || strings.Contains(out, "force=") {
		t.Fatalf("%s\n%s", out, errs)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "openstack") {
			t.Errorf("a delete line for a protected orphan: %s", l)
		}
	}
}

// cleanupResult has one orphan of each kind and each refusal: a live
// server, a duplicate, a deleted instance, one protected by a consumer,
// a secret not in Nova's form, a project ID with a control character, a
// quote to escape; two projects not auditable.
func cleanupResult() vtpmsecret.Result {
	const a, b, c, d = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"
	res := vtpmsecret.Result{NotAuditable: map[string]vtpmsecret.NotAuditable{"p9": {Detail: "403 Forbidden"}, "p8": {Detail: "timeout"}}}
	res.Orphans = []vtpmsecret.Orphan{
		{Secret: vtpmsecret.Secret{ID: a, InstanceID: b, ProjectID: "p1"}, Kind: vtpmsecret.OrphanLive, Live: true, Reason: "server web exists but asks for no vTPM"},
		{Secret: vtpmsecret.Secret{ID: b, InstanceID: c, ProjectID: "p1"}, Kind: vtpmsecret.OrphanDuplicate, Reason: "duplicate: 2 secrets for instance " + c},
		{Secret: vtpmsecret.Secret{ID: c, InstanceID: d, ProjectID: "p1", CreatorID: "u1"}, Kind: vtpmsecret.OrphanGone, Reason: "instance " + d + " no longer exists", AgeSeconds: 3 * 86400},
		{Secret: vtpmsecret.Secret{ID: d, InstanceID: a, ProjectID: "p2", CreatorID: "u2", Consumers: []vtpmsecret.Consumer{vtpmsecret.NovaConsumer(a)}}, Kind: vtpmsecret.OrphanGone, Reason: "gone", AgeSeconds: 5 * 3600},
		{Secret: vtpmsecret.Secret{ID: "not-a-uuid", InstanceID: a, ProjectID: "p2"}, Kind: vtpmsecret.OrphanGone, Reason: "gone"},
		{Secret: vtpmsecret.Secret{ID: a, InstanceID: c, ProjectID: "p\x1b3", CreatorID: "u3"}, Kind: vtpmsecret.OrphanGone, Reason: "gone", AgeSeconds: 2 * 86400},
		{Secret: vtpmsecret.Secret{ID: b, InstanceID: a, ProjectID: "it's", CreatorID: "u4"}, Kind: vtpmsecret.OrphanGone, Reason: "gone", AgeSeconds: 9 * 86400},
	}
	return res
}

// cleanupScript is what the cleanup plan prints (captured from it when
// it became a typed result; its header now says what Nova proved).
const cleanupScript = `#!/bin/sh
set -eu
# vtpmctl secrets audit --cleanup-plan, 2026-01-02T03:04:05Z. Review before running.
# Each vTPM secret of a deleted instance; created by, and age, in the comment.
# An instance is gone only when Nova says so: GET /servers/{uuid} at compute API 2.69 answered 404 to a token with the admin role, while the service list (2.69) showed every cell up, before and after.
# Nova asked: https://nova.example:8774/v2.1, of the one region whose catalog lists this key manager's endpoint. A region that reaches the same key manager at another URL is not seen: its guests' secrets would look orphaned here, so do not run this plan if one does.
# Of 4 candidate secret(s), Nova proved the instance gone for 4; for 0 it exists; 0 are undetermined.
# WARNING: 2 project(s) could not be audited; their orphans are not in this plan:
#   p8: timeout
#   p9: 403 Forbidden
# not deleted, its server exists: 11111111-1111-4111-8111-111111111111 (server web exists but asks for no vTPM)
# duplicate, not deleted: 22222222-2222-4222-8222-222222222222 (instance 33333333-3333-4333-8333-333333333333) — check the domain's <encryption secret> first
# instance 44444444-4444-4444-8444-444444444444 gone (Nova: 404); created by u1, 3d old
openstack --os-cloud 'prod cloud' --os-project-id p1 secret delete https://kms.example:9311/v1/secrets/33333333-3333-4333-8333-333333333333
# protected, not deleted: 44444444-4444-4444-8444-444444444444 (instance 11111111-1111-4111-8111-111111111111 gone, 5h old) has consumer(s) nova/instance/11111111-1111-4111-8111-111111111111; remove the consumer first if you are sure, then delete it
# instance 33333333-3333-4333-8333-333333333333 gone (Nova: 404); created by u3, 2d old
# not written: the cloud name or project ID has control characters; delete 11111111-1111-4111-8111-111111111111 by hand
# instance 11111111-1111-4111-8111-111111111111 gone (Nova: 404); created by u4, 9d old
openstack --os-cloud 'prod cloud' --os-project-id 'it'\''s' secret delete https://kms.example:9311/v1/secrets/22222222-2222-4222-8222-222222222222
`

// allGone is Nova's word that every candidate's instance is gone.
func allGone(r vtpmsecret.Result) vtpmsecret.ServerProof {
	p := vtpmsecret.ServerProof{Endpoint: "https://nova.example:8774/v2.1", Servers: map[string]nova.ExistenceProof{}}
	for _, id := range vtpmsecret.CleanupCandidates(r) {
		p.Servers[id] = nova.ExistenceProof{State: nova.ServerGone, Reason: "GET /servers/" + id + " answered 404"}
	}
	return p
}

// TestCleanupPlanScriptUnchanged: without -f, --cleanup-plan prints the
// same script, byte for byte (the header saying what Nova proved), and
// exits 1 for the unaudited projects.
func TestCleanupPlanScriptUnchanged(t *testing.T) {
	var out, errb bytes.Buffer
	o := &secretsAuditOptions{IO: &IOStreams{Out: &out, Err: &errb}, Global: &globalOptions{}}
	a := secrets.Audited{Result: cleanupResult(), Cloud: "prod cloud", SecretsURL: "https://kms.example:9311/v1/secrets/"}
	err := writeCleanupPlan(o, vtpmsecret.NewCleanupPlan(a.Result, a.Origin(), allGone(a.Result), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	if out.String() != cleanupScript {
		t.Errorf("script changed:\n%s", out.String())
	}
	if errb.String() != "vtpmctl: cleanup plan: 2 delete command(s); nothing was deleted\n" {
		t.Errorf("stderr %q", errb.String())
	}
	if exitCode(err, io.Discard) != exitFailed {
		t.Errorf("exit %v", err)
	}
}

// TestCleanupPlanFormats: with -f, the plan is a result like any other:
// json names each step's kind and command; the table has its rows.
func TestCleanupPlanFormats(t *testing.T) {
	a := secrets.Audited{Result: cleanupResult(), Cloud: "prod cloud", SecretsURL: "https://kms.example:9311/v1/secrets/"}
	for _, f := range []string{"json", "yaml", "table", "value"} {
		t.Run(f, func(t *testing.T) {
			var out, errb bytes.Buffer
			g := &globalOptions{}
			g.Output.Format, g.Output.Explicit = f, true
			o := &secretsAuditOptions{IO: &IOStreams{Out: &out, Err: &errb}, Global: g}
			writeCleanupPlan(o, vtpmsecret.NewCleanupPlan(a.Result, a.Origin(), allGone(a.Result), time.Now()))
			s := out.String()
			if strings.Contains(s, "#!/bin/sh") || !strings.Contains(s, "33333333-3333-4333-8333-333333333333") {
				t.Fatalf("-f %s:\n%s", f, s)
			}
			if f != "json" {
				return
			}
			var p struct {
				Schema string
				Steps  []struct{ Kind, Action, Command string }
			}
			if err := json.Unmarshal(out.Bytes(), &p); err != nil || p.Schema != vtpmsecret.CleanupSchema || len(p.Steps) != 6 {
				t.Fatalf("%v %+v", err, p)
			}
			if p.Steps[0].Kind != "server-exists" || p.Steps[1].Kind != "duplicate" || p.Steps[2].Action != "delete" || !strings.HasPrefix(p.Steps[2].Command, "openstack --os-cloud 'prod cloud'") {
				t.Errorf("%+v", p.Steps)
			}
		})
	}
}

// TestSecretsErrorNamesItsFlags: the service says what is wrong; secrets
// audit and protect name their own flags and decide the exit status.
func TestSecretsErrorNamesItsFlags(t *testing.T) {
	for _, c := range []struct {
		err  error
		line string
		code int
	}{
		{&secrets.ProjectRefError{Ref: "web"}, `vtpmctl: --project: no project named or with ID "web"`, exitUsage},
		{&secrets.ProjectRefError{Ref: "web", Matches: 2}, `vtpmctl: --project: 2 projects are named "web"; use an ID`, exitUsage},
		{&secrets.ScopeError{}, "vtpmctl: --all-projects: auditing every project needs to list Keystone projects, which needs the admin role", exitFailed},
		{&secrets.ConsumersUnavailableError{API: vtpmsecret.API{Major: 1}}, "vtpmctl: secret consumers are not available before key-manager API 1.1 (Barbican 15, Zed); this cloud's key-manager API is 1.0", exitFailed},
	} {
		var b bytes.Buffer
		if code := exitCode(secretsError(c.err), &b); code != c.code || b.String() != c.line+"\n" {
			t.Errorf("%T: exit %d, %q", c.err, code, b.String())
		}
	}
	for h, want := range map[vtpmsecret.Hint]string{vtpmsecret.HintServiceUser: "--nova-service-user", vtpmsecret.HintServiceProject: "--nova-service-project",
		vtpmsecret.HintScope: "--all-projects or --project", vtpmsecret.HintCleanupPlan: "--cleanup-plan"} {
		if got := secretsFlag(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
}
