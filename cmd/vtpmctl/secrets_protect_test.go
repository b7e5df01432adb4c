package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/barbican"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// consumersCloud is secretsCloud at key-manager API 1.1: the versions
// document says so, and the list (asked for 1.1) carries each secret's
// consumers: the guest's secret has none, the orphan has Nova's.
func consumersCloud(t *testing.T) *fakecloud.Cloud {
	c := secretsCloud(t)
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
	if code != 0 || len(posted) != 0 || !strings.Contains(out, "would register 1") || !strings.Contains(out, "orphan: instance "+goneID) {
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
	consumersCloud(t)
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

// printCleanupPlan is generators_fuzz_test.go's way in to the cleanup
// script, from a Result built by hand: its orphans carry no Kind, so one
// that is not Live is taken as instance-gone (delete lines still need
// Nova's UUID form). To go when that test builds its orphans with a Kind.
func printCleanupPlan(o *secretsAuditOptions, cloudName, secretsURL string, res barbican.Result) error {
	for i := range res.Orphans {
		if or := &res.Orphans[i]; or.Kind == "" {
			or.Kind = barbican.OrphanGone
			if or.Live {
				or.Kind = barbican.OrphanLive
			}
		}
	}
	if o.Global == nil {
		o.Global = &globalOptions{}
	}
	return writeCleanupPlan(o, barbican.NewCleanupPlan(barbican.Audited{Result: res, Cloud: cloudName, SecretsURL: secretsURL}, time.Now()))
}
