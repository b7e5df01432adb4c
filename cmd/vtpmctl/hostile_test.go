package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Tests for hostile clouds and files (issue 11), one per class. The cloud
// is fakecloud: faults and crafted answers a real service won't give.

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), append([]string{"vtpmctl"}, args...), &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

func init() { cloud.RetryBase = time.Millisecond }

const (
	guestID  = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"
	secretID = "aaaaaaaa-1111-2222-3333-444444444444"
	goneID   = "0a1b2c3d-0000-4000-8000-000000000001"
)

// secretsCloud is one project with one user-mode vTPM guest and its secret,
// an orphan secret, and handlers a test may replace: a cloud the secrets,
// report and plan commands run against, each reading a part, so its
// routes are optional (a route a test declares again is its own).
func secretsCloud(t *testing.T) *fakecloud.Cloud {
	c := fakecloud.New(t)
	c.OptionalRoutes("secretsCloud's: the commands read a part")
	defer c.OptionalRoutes("")
	p, u := fakecloud.ProjectID, fakecloud.UserID
	c.Handle(fakecloud.Servers, fakecloud.JSON(200, fmt.Sprintf(`{"servers":[{"id":%q,"name":"win\u001b[2J","tenant_id":%q,"user_id":%q,"status":"ACTIVE",
"image":{"id":"img1"},"flavor":{"original_name":"v","extra_specs":{"hw:tpm_version":"2.0","hw:tpm_model":"tpm-crb"}}}]}`, guestID, p, u)))
	c.Handle(fakecloud.Images, fakecloud.JSON(200, `{"images":[{"id":"img1","name":"w"}]}`))
	c.Handle("GET /identity/v3/projects", fakecloud.JSON(200, fmt.Sprintf(`{"projects":[{"id":%q,"name":"p"}],"links":{}}`, p)))
	c.Handle(fakecloud.Secrets, fakecloud.JSON(200, fmt.Sprintf(`{"total":2,"secrets":[
{"name":"vTPM secret for instance %s","secret_ref":"%s/key-manager/v1/secrets/%s","creator_id":%q,"status":"ACTIVE","secret_type":"passphrase","created":"2026-01-01T00:00:00"},
{"name":"vTPM secret for instance %s","secret_ref":"%s/key-manager/v1/secrets/%s","creator_id":%q,"status":"ACTIVE","secret_type":"passphrase","created":"2026-01-01T00:00:00"}]}`,
		guestID, c.URL, secretID, u, goneID, c.URL, "bbbbbbbb-1111-2222-3333-444444444444", u)))
	c.Handle("GET /key-manager/v1/secrets/*", fakecloud.JSON(200, `{"read":{"project-access":true}}`))
	c.Handle("GET /identity/v3/users/*", fakecloud.JSON(200, fmt.Sprintf(`{"user":{"id":%q,"name":"owner","enabled":true}}`, u)))
	c.Handle(fakecloud.RoleAssignments, fakecloud.JSON(200, fmt.Sprintf(`{"role_assignments":[{"user":{"id":%q},"role":{"id":"r"},"scope":{"project":{"id":%q}}}],"links":{}}`, u, p)))
	// report and plan verify read the fleet too: no hosts, not a 404
	c.Handle(fakecloud.Hypervisors, fakecloud.JSON(200, `{"hypervisors":[]}`))
	c.Handle(fakecloud.ResourceProviders, fakecloud.JSON(200, `{"resource_providers":[]}`))
	// The audits list volumes once (volume-backed guests); none here.
	c.Handle(fakecloud.Volumes, fakecloud.JSON(200, `{"volumes":[]}`))
	return c
}

// TestOwnerValidSkipsWhenRolesUnreadable: a 403 on role assignments is
// "could not be read", never "no role any more".
func TestOwnerValidSkipsWhenRolesUnreadable(t *testing.T) {
	c := secretsCloud(t)
	c.Handle("GET /identity/v3/role_assignments", fakecloud.JSON(403, `{"error":{"code":403,"message":"forbidden"}}`))
	out, errs, _ := runCLI(t, "--os-cloud", "fake", "secrets", "audit", "-f", "json")
	if !strings.Contains(out, `"OWNER-VALID"`) || strings.Contains(out, "any more") {
		t.Fatalf("OWNER-VALID wrong when roles are unreadable:\n%s\n%s", out, errs)
	}
	if !strings.Contains(out, "role assignments in the project could not be read") {
		t.Errorf("no skip reason:\n%s", out)
	}
}

// TestTransientErrorsRetried: one 502 on an ACL read is retried; a
// persistent 500 is that secret's skip, not the project's.
func TestTransientErrorsRetried(t *testing.T) {
	c := secretsCloud(t)
	n := 0
	c.Handle("GET /key-manager/v1/secrets/*", func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			fakecloud.JSON(502, `bad gateway`)(w, r)
			return
		}
		fakecloud.JSON(200, `{"read":{"project-access":true}}`)(w, r)
	})
	out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "audit")
	if code != 0 || strings.Contains(out, "not auditable: ") {
		t.Fatalf("a single 502 made the audit fail (exit %d):\n%s\n%s", code, out, errs)
	}
	c.Handle("GET /key-manager/v1/secrets/*", fakecloud.JSON(500, `{"error":"boom"}`))
	out, errs, _ = runCLI(t, "--os-cloud", "fake", "secrets", "audit", "-f", "json")
	if !strings.Contains(out, "ACL could not be read") || strings.Contains(out, `"not_auditable": {
    "`) {
		t.Fatalf("a persistent ACL error was not kept to its secret:\n%s\n%s", out, errs)
	}
}

// TestCleanupPlanUnauditedProject: the script says so and the exit is 1.
func TestCleanupPlanUnauditedProject(t *testing.T) {
	c := secretsCloud(t)
	c.Handle("GET /key-manager/v1/secrets", fakecloud.JSON(403, `{"title":"Forbidden"}`))
	out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "audit", "--cleanup-plan")
	if code != 1 || !strings.Contains(out, "set -eu") || !strings.Contains(out, "WARNING: 1 project(s) could not be audited") || !strings.Contains(errs, "could not be audited") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
}

// TestPayloadRefSecret: a secret_ref ending in /payload is named, not
// requested, and the project is still audited.
func TestPayloadRefSecret(t *testing.T) {
	c := secretsCloud(t)
	c.Handle("GET /key-manager/v1/secrets", fakecloud.JSON(200, fmt.Sprintf(`{"secrets":[
{"name":"vTPM secret for instance %s","secret_ref":"%s/key-manager/v1/secrets/%s","creator_id":%q,"status":"ACTIVE","secret_type":"passphrase","created":"2026-01-01T00:00:00"},
{"name":"vTPM secret for instance %s","secret_ref":"%s/key-manager/v1/secrets/%s/payload","creator_id":"x","status":"ACTIVE","created":"2026-01-01T00:00:00"}]}`,
		guestID, c.URL, secretID, fakecloud.UserID, goneID, c.URL, secretID)))
	out, errs, _ := runCLI(t, "--os-cloud", "fake", "secrets", "audit", "-f", "json")
	if c.Count("GET /key-manager/v1/secrets/"+secretID+"/payload") > 0 {
		t.Fatal("a payload request left vtpmctl")
	}
	if !strings.Contains(out, "not a secret's URL") || strings.Contains(out, `"not_auditable": {
    "`) {
		t.Fatalf("payload ref not handled per secret:\n%s\n%s", out, errs)
	}
}

// TestMisleadingMessages: a 5xx on the version document and a failed
// authentication are named as what they are, without credentials.
func TestMisleadingMessages(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(503, `{"error":"maintenance"}`))
	_, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "audit")
	if code != 1 || !strings.Contains(errs, "503") || !strings.Contains(errs, "/compute/v2.1/") || strings.Contains(errs, "microversions not supported") {
		t.Errorf("exit %d: %s", code, errs)
	}
	c.TokenStatus, c.TokenBody = 401, `{"error":{"message":"The password `+fakecloud.Password+` is wrong"}}`
	_, errs, code = runCLI(t, "--os-cloud", "fake", "secrets", "audit")
	if code == 0 || strings.Contains(errs, fakecloud.Password) || !strings.Contains(errs, "401") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestDebugAndErrorsNeverShowCredentials: the password in auth_url and in
// an echoing error body stay out of --debug and the error line.
func TestDebugAndErrorsNeverShowCredentials(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"password":["`+fakecloud.Password+`"],"token":{"value":"`+fakecloud.Token+`"}}`))
	_, errs, _ := runCLI(t, "--debug", "--os-cloud", "fake", "secrets", "audit")
	for _, leak := range []string{fakecloud.Password, fakecloud.Token} {
		if strings.Contains(errs, leak) {
			t.Errorf("%q leaked:\n%s", leak, errs)
		}
	}
	if !strings.Contains(errs, "REQ: GET") {
		t.Errorf("no debug log:\n%s", errs)
	}
}

func TestTimeoutMustBePositive(t *testing.T) {
	for _, v := range []string{"0", "-5s"} {
		if _, errs, code := runCLI(t, "--timeout", v, "check", "--image-property", "hw_tpm_version=2.0", "--nova-release", "zed"); code != 2 || !strings.Contains(errs, "must be positive") {
			t.Errorf("--timeout %s: exit %d %s", v, code, errs)
		}
	}
}

// TestIdentityInAnotherRegion: Keystone registered in one region only;
// --os-region-name names another: no panic, the audit runs.
func TestIdentityInAnotherRegion(t *testing.T) {
	c := secretsCloud(t)
	c.Region, c.IdentityRegion = "RegionTwo", "RegionOne"
	out, errs, code := runCLI(t, "--os-cloud", "fake", "--os-region-name", "RegionTwo", "secrets", "audit", "--project", "p")
	if code == 2 || strings.Contains(errs, "panic") || !strings.Contains(out, "guests 1") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
}

// TestImageNameIsNotAnOperator: 'in:win' names the image "in:win", never
// "win", whatever Glance's filter returns.
func TestImageNameIsNotAnOperator(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("GET /image/v2/images?limit=100&name=eq:in:win", func(w http.ResponseWriter, r *http.Request) {
		fakecloud.JSON(200, `{"images":[{"id":"i-win","name":"win"},{"id":"i-in","name":"in:win"}]}`)(w, r)
	})
	c.Handle("PATCH /image/v2/images/*", fakecloud.JSON(200, `{"id":"i-in","name":"in:win"}`))
	// image set checks the flavors and the volumes made from the image
	c.Handle(fakecloud.Flavors, fakecloud.JSON(200, `{"flavors":[]}`))
	c.Handle(fakecloud.Volumes, fakecloud.JSON(200, `{"volumes":[]}`))
	_, errs, code := runCLI(t, "--os-cloud", "fake", "image", "set", "in:win", "--tpm-version", "2.0")
	if c.Count("PATCH /image/v2/images/i-win") > 0 {
		t.Fatal("image win was changed")
	}
	if code != 0 || c.Count("PATCH /image/v2/images/i-in") != 1 {
		t.Fatalf("exit %d %s %v", code, errs, c.Requests)
	}
}

// TestFlavorCreateRollbackAfterInterrupt: the half-made flavor is deleted
// even though the command's context is cancelled (Ctrl-C).
func TestFlavorCreateRollbackAfterInterrupt(t *testing.T) {
	c := fakecloud.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	c.Handle(fakecloud.Images, fakecloud.JSON(200, `{"images":[]}`)) // create checks image names for conflicts
	c.Handle(fakecloud.Flavors, fakecloud.JSON(200, `{"flavors":[]}`))
	c.Handle(fakecloud.Flavor, fakecloud.JSON(404, `{"itemNotFound":{"message":"no"}}`))
	c.Handle("POST /compute/v2.1/flavors", fakecloud.JSON(200, `{"flavor":{"id":"f1","name":"vtpm","vcpus":2,"ram":4096,"disk":40,"extra_specs":{}}}`))
	c.Handle("POST /compute/v2.1/flavors/f1/os-extra_specs", func(w http.ResponseWriter, r *http.Request) {
		cancel() // the user presses Ctrl-C while the specs are being written
		time.Sleep(20 * time.Millisecond)
		fakecloud.JSON(500, `{"error":"late"}`)(w, r)
	})
	c.Handle("DELETE /compute/v2.1/flavors/f1", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(202) })
	var out, errb bytes.Buffer
	code := Main(ctx, []string{"vtpmctl", "--os-cloud", "fake", "flavor", "create", "vtpm", "--vcpus", "2", "--ram", "4096", "--disk", "40", "--tpm-version", "2.0"},
		&IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if c.Count("DELETE /compute/v2.1/flavors/f1") != 1 {
		t.Fatalf("no rollback (exit %d): %s %v", code, errb.String(), c.Requests)
	}
	if code == 0 {
		t.Error("an interrupted create reported success")
	}
}

// TestOutputPathsKeepDevices: -o and --junit to a character device (a
// /dev/null made with mknod) write through it and leave it a device.
func TestOutputPathsKeepDevices(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root (CI runs as root)")
	}
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "etc/nova"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/nova/nova.conf"), []byte("[DEFAULT]\nhost = h\n"), 0o644)
	for _, args := range [][]string{
		{"plan", "import", "--rvtools", "../../domain/migration/testdata/RVTools_tabvInfo-40.csv", "-o", null},
		{"host", "check", "--root", root, "--nova-release", "zed", "--junit", null},
	} {
		_, errs, code := runCLI(t, args...)
		if code == 2 {
			t.Errorf("%v: exit 2: %s", args, errs)
		}
		st, err := os.Lstat(null)
		if err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%v replaced the device: %v %v", args, st.Mode(), err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// TestTerminalEscapesNeutralised: a server name with escape sequences
// reaches the table without them; json keeps it exact.
func TestTerminalEscapesNeutralised(t *testing.T) {
	secretsCloud(t)
	out, _, _ := runCLI(t, "--os-cloud", "fake", "secrets", "audit")
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "win\uFFFD[2J") {
		t.Errorf("table output:\n%q", out)
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "secrets", "audit", "-f", "json")
	if !strings.Contains(out, `win\u001b[2J`) {
		t.Errorf("json output lost the exact name:\n%s", out)
	}
}

// TestPlanExitStatus: a 5xx or a timeout in plan diff/apply is a failed
// operation (1), a plan that cannot apply is usage (2).
func TestPlanExitStatus(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte("version: 1\nimages:\n  - name: w\n    tpm_version: \"2.0\"\nflavors:\n  - name: f\n    vcpus: 1\n    ram: 512\n    disk: 1\nvms: []\n"), 0o644)
	for _, tc := range []struct {
		name   string
		images http.HandlerFunc
		args   []string
		want   int
		listed bool // the images were read: the flavors are asked next
	}{
		{"5xx", fakecloud.JSON(500, `{"error":"db down"}`), nil, 1, false},
		{"timeout", func(w http.ResponseWriter, r *http.Request) { time.Sleep(1500 * time.Millisecond) }, []string{"--timeout", "300ms"}, 1, false},
		{"bad plan", fakecloud.JSON(200, `{"images":[]}`), nil, 2, true},
	} {
		for _, verb := range []string{"diff", "apply"} {
			c := fakecloud.New(t)
			c.Handle(fakecloud.ImagesByName, tc.images)
			if tc.listed {
				c.Handle(fakecloud.Flavors, fakecloud.JSON(200, `{"flavors":[{"id":"1","name":"f","vcpus":2,"ram":512,"disk":1}]}`))
			}
			args := append(append([]string{"--os-cloud", "fake"}, tc.args...), "plan", verb, plan)
			if verb == "apply" {
				args = append(args, "--yes")
			}
			_, errs, code := runCLI(t, args...)
			if code != tc.want {
				t.Errorf("%s %s: exit %d, want %d: %s", tc.name, verb, code, tc.want, errs)
			}
		}
	}
}

// TestPayloadGuardOnEverySession: every command that can reach the key
// manager gets a client whose transport starts with the policy layer,
// whatever the order of its calls (report connects before it audits).
func TestPayloadGuardOnEverySession(t *testing.T) {
	c := secretsCloud(t)
	// the cleanup plan asks Nova for its candidates' instances
	c.Handle("GET /compute/v2.1/os-services [compute 2.69]", fakecloud.JSON(200, `{"services":[]}`))
	c.Handle("GET /compute/v2.1/servers/* [compute 2.69]", fakecloud.JSON(404, `{"itemNotFound":{"code":404}}`))
	var opened []*cloud.Session
	sessionOpened = func(s *cloud.Session) { opened = append(opened, s) }
	defer func() { sessionOpened = nil }()
	out := filepath.Join(t.TempDir(), "r.html")
	for _, args := range [][]string{
		{"secrets", "audit"}, {"secrets", "audit", "--cleanup-plan"}, {"report", "--out", out},
	} {
		opened = nil
		_, errs, _ := runCLI(t, append([]string{"--os-cloud", "fake"}, args...)...)
		if len(opened) == 0 {
			t.Fatalf("%v opened no session: %s", args, errs)
		}
		for _, s := range opened {
			if !cloud.HasPolicy(&s.Provider.HTTPClient) {
				t.Errorf("%v: a session without the payload guard", args)
			}
		}
	}
}

// TestBidiControlsNeutralised: a name with Unicode bidi controls (Trojan
// source: "\u202e" shows "exe.pdf" as "fdp.exe") reaches neither the
// table, nor an error line, nor the markdown checklist; json keeps it exact.
func TestBidiControlsNeutralised(t *testing.T) {
	const evil = "win\u202egpj.exe\u2066x\u2069"
	c := secretsCloud(t)
	c.Handle(fakecloud.Servers, fakecloud.JSON(200, fmt.Sprintf(`{"servers":[{"id":%q,"name":%q,"tenant_id":%q,"user_id":%q,"status":"ACTIVE",
"image":{"id":"img1"},"flavor":{"original_name":"v","extra_specs":{"hw:tpm_version":"2.0","hw:tpm_model":"tpm-crb"}}}]}`, guestID, evil, fakecloud.ProjectID, fakecloud.UserID)))
	bidi := func(s string) bool {
		return strings.ContainsAny(s, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
	}
	out, _, _ := runCLI(t, "--os-cloud", "fake", "secrets", "audit")
	if bidi(out) || !strings.Contains(out, "win\uFFFDgpj.exe\uFFFDx\uFFFD") {
		t.Errorf("table output:\n%q", out)
	}
	if out, _, _ = runCLI(t, "--os-cloud", "fake", "secrets", "audit", "-f", "json"); !strings.Contains(out, evil) {
		t.Errorf("json output lost the exact name:\n%s", out)
	}
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(503, `{"error":"`+evil+`"}`))
	if _, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "audit"); code != 1 || bidi(errs) || !strings.Contains(errs, "503") {
		t.Errorf("exit %d, error line %q", code, errs)
	}
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("version: 1\nvms:\n"+
		"  - {name: \""+evil+"\", guest_os: w, firmware: efi, secure_boot: \"yes\", source_vtpm: \"yes\", vcpus: 1, ram: 64, disk: 1, target_flavor: f, target_image: i, target_vtpm: 2.0 tpm-crb}\n"), 0o644)
	out, errs, code := runCLI(t, "plan", "checklist", plan)
	if code != 0 || bidi(out) || !strings.Contains(out, "win?gpj.exe?x?") {
		t.Errorf("checklist: exit %d %s\n%q", code, errs, out)
	}
}

// TestTimeoutSeconds: --timeout takes seconds as the openstack client
// does (300), and Go durations as before (30s, 2m); VTPMCTL_TIMEOUT too.
// Anything else is one usage line naming both spellings.
func TestTimeoutSeconds(t *testing.T) {
	offline := []string{"check", "--image-property", "hw_tpm_version=2.0", "--nova-release", "zed"}
	timeout := func(env string, args ...string) (time.Duration, string, int) {
		t.Setenv("VTPMCTL_TIMEOUT", env)
		var out, errb bytes.Buffer
		g := &globalOptions{}
		root := newRootCommand(g, &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
		err := root.Run(context.Background(), append(append([]string{"vtpmctl"}, args...), offline...))
		return g.Cloud.Timeout, errb.String(), exitCode(err, &errb)
	}
	for _, tc := range []struct {
		flag, env string
		want      time.Duration
	}{
		{"300", "", 300 * time.Second},
		{"2.5", "", 2500 * time.Millisecond},
		{"30s", "", 30 * time.Second},
		{"2m", "", 2 * time.Minute},
		{"1m30s", "", 90 * time.Second},
		{"", "300", 300 * time.Second},
		{"", "45s", 45 * time.Second},
		{"", "", 60 * time.Second},
	} {
		var args []string
		if tc.flag != "" {
			args = []string{"--timeout", tc.flag}
		}
		got, errs, code := timeout(tc.env, args...)
		if code != 0 || got != tc.want {
			t.Errorf("--timeout %q VTPMCTL_TIMEOUT=%q: %s, exit %d %s; want %s", tc.flag, tc.env, got, code, errs, tc.want)
		}
	}
	for _, v := range []string{"5 minutes", "300x", "inf", "1e300"} {
		_, errs, code := runCLI(t, append([]string{"--timeout", v}, offline...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--timeout") {
			t.Errorf("--timeout %q: exit %d %q", v, code, errs)
		}
	}
}
