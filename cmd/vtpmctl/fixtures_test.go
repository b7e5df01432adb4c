package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Commands against the local cloud's captured answers (fakecloud
// fixtures): every run function, no cloud needed. The integration tests
// run the same commands against the live services.

// fixtureCloud is the standard fixture cloud that takes image writes: a
// cloud many commands run against, each reading a part (a test that
// writes counts its writes).
func fixtureCloud(t *testing.T) *fakecloud.Cloud {
	c := fakecloud.New(t).Standard()
	img := c.FixtureObjects("images", "images")
	c.Handle("PATCH /image/v2/images/*", func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(img[0])
		fakecloud.JSON(200, string(b))(w, r)
	}).Optional("the fixture cloud's image writes")
	return c
}

func jsonOut(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
}

func TestFixtureImageCommands(t *testing.T) {
	c := fixtureCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "image", "show", fakecloud.FixtureImage, "-f", "json")
	var show map[string]any
	jsonOut(t, out, &show)
	vtpm, _ := show["vtpm"].(map[string]any)
	rel, _ := show["nova_release"].(map[string]any)
	if code != 0 || show["schema"] != "vtpmctl.image-show/1" || vtpm["enabled"] != true || vtpm["version"] != "2.0" || rel["codename"] != "zed" {
		t.Fatalf("image show: exit %d %v %s", code, show, errs)
	}
	out, _, code = runCLI(t, "--os-cloud", "fake", "image", "list", "--vtpm", "-f", "value", "-c", "name")
	if code != 0 || strings.TrimSpace(out) != fakecloud.FixtureImage {
		t.Errorf("image list --vtpm: %q", out)
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "image", "list", "--no-vtpm", "-f", "value", "-c", "name")
	if strings.Contains(out, fakecloud.FixtureImage) {
		t.Errorf("image list --no-vtpm: %q", out)
	}
	// Already tagged: a rerun writes nothing.
	_, errs, code = runCLI(t, "--os-cloud", "fake", "image", "set", fakecloud.FixtureImage, "--tpm-version", "2.0", "--tpm-model", "tpm-crb")
	if code != 0 || c.Count("PATCH") != 0 {
		t.Errorf("image set (no change): exit %d, %d writes: %s", code, c.Count("PATCH"), errs)
	}
	out, _, code = runCLI(t, "--os-cloud", "fake", "image", "set", fakecloud.FixtureImage, "--windows", "--dry-run", "-f", "json")
	if code != 0 || c.Count("PATCH") != 0 || !strings.Contains(out, "hw_firmware_type") {
		t.Errorf("image set --windows --dry-run: exit %d:\n%s", code, out)
	}
	_, errs, code = runCLI(t, "--os-cloud", "fake", "image", "unset", fakecloud.FixtureImage)
	if code != 0 || c.Count("PATCH /image/v2/images/") != 1 {
		t.Errorf("image unset: exit %d %s %v", code, errs, c.Requests)
	}
	_, errs, code = runCLI(t, "--os-cloud", "fake", "image", "show", "no-such-image")
	if code != 2 || !strings.Contains(errs, "no image named") {
		t.Errorf("unknown image: exit %d %s", code, errs)
	}
}

func TestFixtureFlavorCommands(t *testing.T) {
	c := fixtureCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "flavor", "show", fakecloud.FixtureFlavor, "-f", "json", "-c", "required_traits", "-c", "vtpm")
	if code != 0 || !strings.Contains(out, "COMPUTE_SECURITY_TPM_2_0") || !strings.Contains(out, `"model": "tpm-crb"`) || !strings.Contains(out, `"schema": "vtpmctl.flavor-show/1"`) {
		t.Fatalf("flavor show: exit %d %s %s", code, out, errs)
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "flavor", "list", "--vtpm", "-f", "value", "-c", "name")
	if strings.TrimSpace(out) != fakecloud.FixtureFlavor {
		t.Errorf("flavor list --vtpm: %q", out)
	}
	c.Handle("PUT /compute/v2.1/flavors/*", fakecloud.JSON(200, `{"hw:tpm_model":"tpm-tis"}`))
	var fid string
	for _, f := range c.FixtureObjects("flavors-detail", "flavors") {
		if f["name"] == fakecloud.FixtureFlavor {
			fid = f["id"].(string)
		}
	}
	// flavor set counts the servers built from the flavor it changed
	c.Handle("GET /compute/v2.1/servers?all_tenants=true&flavor="+fid+"&limit=1000", fakecloud.JSON(200, `{"servers":[]}`))
	_, errs, code = runCLI(t, "--os-cloud", "fake", "flavor", "set", fakecloud.FixtureFlavor, "--tpm-model", "tpm-tis")
	if code != 0 || c.Count("PUT /compute/v2.1/flavors/") != 1 {
		t.Errorf("flavor set: exit %d %s %v", code, errs, c.Requests)
	}
	out, _, code = runCLI(t, "--os-cloud", "fake", "flavor", "unset", fakecloud.FixtureFlavor, "--dry-run", "-f", "value", "-c", "action")
	if code != 0 || !strings.Contains(out, "would be removed") || c.Count("DELETE") != 0 {
		t.Errorf("flavor unset --dry-run: exit %d %q", code, out)
	}
	_, errs, code = runCLI(t, "--os-cloud", "fake", "flavor", "set", fakecloud.FixtureFlavor, "--secret-security", "host")
	if code != 2 || !strings.Contains(errs, "2026.1") {
		t.Errorf("secret security on Zed: exit %d %s", code, errs)
	}
}

func TestFixtureCheckOnline(t *testing.T) {
	fixtureCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "check", "--image", fakecloud.FixtureImage, "--flavor", fakecloud.FixtureFlavor, "-f", "json")
	var rec map[string]any
	jsonOut(t, out, &rec)
	if code != 0 || rec["vtpm"] != true || !strings.Contains(rec["nova_release_note"].(string), "detected from the compute API maximum microversion 2.93") {
		t.Fatalf("exit %d %v %s", code, rec, errs)
	}
	// a what-if that Nova refuses
	_, _, code = runCLI(t, "--os-cloud", "fake", "check", "--image", fakecloud.FixtureImage, "--flavor", fakecloud.FixtureFlavor, "--flavor-spec", "hw:tpm_version=1.2")
	if code != 1 {
		t.Errorf("conflict: exit %d", code)
	}
}

func TestFixtureFleetAndUpgrade(t *testing.T) {
	c := fixtureCloud(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "hosts", "audit", "-f", "json")
	var fleet struct {
		Schema  string `json:"schema"`
		Release string `json:"nova_release"`
		Hosts   []struct {
			Host   string   `json:"host"`
			Traits []string `json:"traits"`
		} `json:"hosts"`
	}
	jsonOut(t, out, &fleet)
	if fleet.Schema != "vtpmctl.hosts-audit/2" || fleet.Release != "zed" || len(fleet.Hosts) != 2 {
		t.Fatalf("hosts audit: exit %d %+v %s", code, fleet, errs)
	}
	// the traits come from Placement's required= filter, which needs 1.18
	traits := map[string]bool{}
	for _, r := range c.SentTo("GET", "/placement/resource_providers") {
		if r.Microversion != "placement 1.18" {
			t.Errorf("%s: Placement ignores required= below 1.18", r)
		}
		traits[r.Query.Get("required")] = true
	}
	if !traits["COMPUTE_SECURITY_TPM_2_0"] || !traits["COMPUTE_SECURITY_TPM_1_2"] {
		t.Errorf("traits asked: %v", traits)
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "hosts", "audit")
	if !strings.Contains(out, "2 host(s)") {
		t.Errorf("table footer missing:\n%s", out)
	}
	out, errs, code = runCLI(t, "--os-cloud", "fake", "upgrade", "check", "--to", "2024.2", "--long")
	if code != 1 || !strings.Contains(out, "stranded: "+fakecloud.FixtureServer) {
		t.Errorf("upgrade to 2024.2: exit %d\n%s%s", code, out, errs)
	}
	// the global --long, before the command, lists every row too
	out, errs, code = runCLI(t, "--os-cloud", "fake", "--long", "upgrade", "check", "--to", "2024.2")
	if code != 1 || !strings.Contains(out, "stranded: "+fakecloud.FixtureServer) {
		t.Errorf("--long upgrade to 2024.2: exit %d\n%s%s", code, out, errs)
	}
	_, errs, code = runCLI(t, "--os-cloud", "fake", "upgrade", "check", "--to", "yoga")
	if code != 2 || !strings.Contains(errs, "older") {
		t.Errorf("downgrade: exit %d %s", code, errs)
	}
}

func TestFixtureSecretsAndReport(t *testing.T) {
	c := fixtureCloud(t)
	demo := ""
	for _, p := range c.FixtureObjects("projects", "projects") {
		if p["name"] == "demo" {
			demo = p["id"].(string)
		}
	}
	out, errs, code := runCLI(t, "--os-cloud", "fake", "secrets", "audit", "--project", "demo", "-f", "json")
	var res struct {
		Schema string `json:"schema"`
		Guests []struct {
			Name     string `json:"name"`
			SecretID string `json:"secret_id"`
		} `json:"guests"`
	}
	jsonOut(t, out, &res)
	if res.Schema != "vtpmctl.secrets-audit/2" || len(res.Guests) != 1 || res.Guests[0].SecretID == "" || demo == "" {
		t.Fatalf("secrets audit: exit %d %+v %s", code, res, errs)
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "r.html")
	_, errs, code = runCLI(t, "--os-cloud", "fake", "report", "--out", html, "--upgrade-to", "2024.2")
	b, _ := os.ReadFile(html)
	if code != 0 || !strings.Contains(string(b), fakecloud.FixtureServer) || !strings.Contains(string(b), "Upgrade to 2024.2") {
		t.Fatalf("report: exit %d %s", code, errs)
	}
	if st, _ := os.Stat(html); st.Mode().Perm() != 0o600 {
		t.Errorf("report mode %v", st.Mode())
	}
	// the JSON the commands write is what report --from reads
	for _, args := range [][]string{{"hosts", "audit"}, {"secrets", "audit", "--project", "demo"}} {
		out, _, _ := runCLI(t, append([]string{"--os-cloud", "fake"}, append(args, "-f", "json")...)...)
		os.WriteFile(filepath.Join(dir, args[0]+".json"), []byte(out), 0o644)
	}
	_, errs, code = runCLI(t, "report", "--out", html, "--from", filepath.Join(dir, "hosts.json"), "--from", filepath.Join(dir, "secrets.json"))
	if code != 0 {
		t.Errorf("report --from: exit %d %s", code, errs)
	}
	os.WriteFile(filepath.Join(dir, "old.json"), []byte(`{"host":"h","checks":[]}`), 0o644)
	_, errs, code = runCLI(t, "report", "--out", html, "--from", filepath.Join(dir, "old.json"))
	if code != 2 || !strings.Contains(errs, "older vtpmctl") {
		t.Errorf("old file: exit %d %s", code, errs)
	}
}

func TestFixturePlanDiff(t *testing.T) {
	c := fixtureCloud(t)
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("version: 1\nimages:\n  - name: "+fakecloud.FixtureImage+"\n    tpm_version: \"2.0\"\n    tpm_model: tpm-crb\n  - name: not-converted\n    tpm_version: \"2.0\"\nflavors:\n  - name: "+fakecloud.FixtureFlavor+"\n    vcpus: 1\n    ram: 64\n    disk: 1\n    tpm_version: \"2.0\"\n    tpm_model: tpm-crb\nvms: []\n"), 0o644)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "plan", "diff", plan, "-f", "json")
	if code != 0 || strings.Contains(out, `"would be`) || !strings.Contains(errs, "not-converted: pending") {
		t.Fatalf("plan diff: exit %d\n%s\n%s", code, out, errs)
	}
	_, _, code = runCLI(t, "--os-cloud", "fake", "plan", "apply", plan, "--yes")
	if code != 0 || c.Count("PATCH") != 0 || c.Count("POST /compute") != 0 {
		t.Errorf("converged plan apply wrote: exit %d %v", code, c.Requests)
	}
}

// TestFixtureAmbiguousReleaseLabel: a 2.100 cloud is "2025.1 or 2025.2"
// in every report, and no warning is printed (their rules agree).
func TestFixtureAmbiguousReleaseLabel(t *testing.T) {
	c := fixtureCloud(t)
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(200, `{"version":{"id":"v2.1","status":"CURRENT","version":"2.100","min_version":"2.1"}}`))
	out, errs, _ := runCLI(t, "--os-cloud", "fake", "hosts", "audit")
	if !strings.Contains(out, "(scheduler: Nova 2025.1 or 2025.2)") || strings.Contains(errs, "warning") {
		t.Errorf("hosts audit:\n%s%s", out, errs)
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "hosts", "audit", "-f", "json")
	if !strings.Contains(out, `"nova_release_candidates": [`) {
		t.Errorf("JSON lacks the candidates:\n%s", out)
	}
	out, _, _ = runCLI(t, "--os-cloud", "fake", "upgrade", "check", "--to", "2026.1")
	if !strings.Contains(out, "upgrade 2025.1 or 2025.2 -> 2026.1") {
		t.Errorf("upgrade check:\n%s", out)
	}
}

// TestFixturePlanVerify: plan verify against the captured cloud: the
// captured vTPM server keeps its promise, a VM without a server is named.
func TestFixturePlanVerify(t *testing.T) {
	fixtureCloud(t)
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("version: 1\nvms:\n"+
		"  - {name: "+fakecloud.FixtureServer+", guest_os: w, firmware: unknown, secure_boot: unknown, source_vtpm: \"yes\", vcpus: 1, ram: 64, disk: 1, target_flavor: "+fakecloud.FixtureFlavor+", target_image: "+fakecloud.FixtureImage+", target_vtpm: 2.0 tpm-crb, bitlocker_escrow: unconfirmed}\n"+
		"  - {name: not-migrated-yet, guest_os: w, firmware: efi, secure_boot: \"yes\", source_vtpm: \"yes\", vcpus: 1, ram: 64, disk: 1, target_flavor: f, target_image: i, target_vtpm: 2.0 tpm-crb}\n"), 0o644)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "plan", "verify", plan, "-f", "json")
	var r struct {
		VMs []struct {
			VM, Verdict string
			Checks      []struct{ Check, Status string }
		} `json:"vms"`
		Unconfirmed []string `json:"bitlocker_escrow_unconfirmed"`
	}
	jsonOut(t, out, &r)
	if code != 1 || len(r.VMs) != 2 || r.VMs[0].Verdict != "verified" || r.VMs[1].Verdict != "not found" || len(r.Unconfirmed) != 1 {
		t.Errorf("exit %d %+v\n%s", code, r, errs)
	}
	// The secret (secrets audit) and the host's traits (Placement) were read.
	got := map[string]string{}
	for _, c := range r.VMs[0].Checks {
		got[c.Check] = c.Status
	}
	if got["SECRET"] != "pass" || got["HOST-TRAITS"] != "pass" || got["VTPM"] != "pass" || got["DOMAIN-TPM"] != "skip" {
		t.Errorf("checks %v", got)
	}
	// A host report that lacks the domain: DOMAIN-TPM names it.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "devcloud.json"), []byte(`{"schema":"vtpmctl.host-check/1","host":"devcloud","nova_release":"zed","checks":[],"traits":[],"vtpm_guests":[],"facts":{}}`), 0o644)
	out, _, code = runCLI(t, "--os-cloud", "fake", "plan", "verify", plan, "--host-reports", dir, "--match", "not-migrated-yet="+fakecloud.FixtureServer)
	if code != 1 || !strings.Contains(out, "DOMAIN-TPM: host devcloud's report lists no vTPM domain") || !strings.Contains(out, "also matches planned VM") {
		t.Errorf("host report: exit %d\n%s", code, out)
	}
	if _, errs, code := runCLI(t, "--os-cloud", "fake", "plan", "verify", plan, "--match", "{name}"); code != 2 || !strings.Contains(errs, "{vm}") {
		t.Errorf("bad --match: exit %d %s", code, errs)
	}
}
