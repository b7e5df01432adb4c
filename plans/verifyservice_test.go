package plans

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/result"
	"github.com/vtpmctl/vtpmctl/internal/scalecloud"
	"github.com/vtpmctl/vtpmctl/nova"
)

// scaleSession connects as vtpmctl does (clouds.yaml) to a strict
// synthetic cloud; a request it does not serve fails the test.
func scaleSession(t *testing.T, cfg scalecloud.Config) *cloud.Session {
	t.Helper()
	c, err := scalecloud.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s := c.Stats(); s.NUnexpected > 0 {
			t.Errorf("%d requests the cloud does not serve: %v", s.NUnexpected, s.Unexpected)
		}
		c.Close()
	})
	path := filepath.Join(t.TempDir(), "clouds.yaml")
	yaml := fmt.Sprintf("clouds:\n  scale:\n    auth:\n      auth_url: %s/v3\n      username: admin\n      password: %s\n      project_name: admin\n      user_domain_name: Default\n      project_domain_name: Default\n    region_name: RegionOne\n", c.URL, scalecloud.Password)
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", path)
	sess, err := cloud.Connect(context.Background(), cloud.Options{Cloud: "scale", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// TestVerifyCutover: one call lists the servers, matches the plan's VMs
// by name, reads host traits and audits the matched guests' secrets with
// the secrets audit's defaults; a caller without flags is told what is
// off, never a flag it does not have.
func TestVerifyCutover(t *testing.T) {
	sess := scaleSession(t, scalecloud.Config{Guests: 6, Projects: 2, Hypervisors: 2})
	p, _ := Import([]SourceVM{{Name: scalecloud.GuestName(0), GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "yes", VCPUs: 2, MemoryMiB: 4096},
		{Name: "never-migrated", GuestID: "windows11_64Guest", Firmware: "efi", VTPM: "yes", VCPUs: 2, MemoryMiB: 4096}}, ImportOptions{})
	r, rel, err := VerifyCutover(context.Background(), sess, VerifyRequest{Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Release != nova.Zed || len(r.VMs) != 2 || r.VMs[0].ServerID == "" || r.VMs[1].Verdict != NotFound {
		t.Fatalf("release %s, %+v", rel.Release, r.VMs)
	}
	checks := map[string]VerifyCheck{}
	for _, c := range r.VMs[0].Checks {
		checks[c.Check] = c
	}
	if c := checks[CheckSecret]; c.Status == result.Skip && strings.Contains(c.Message, "not audited") {
		t.Errorf("the secret was not audited: %+v", c)
	}
	if _, ok := r.NotChecked[CheckHostTraits]; ok {
		t.Errorf("host traits not read: %v", r.NotChecked)
	}
	if r.NotChecked[CheckDomainTPM] != "no host check reports given" {
		t.Errorf("not_checked %v", r.NotChecked)
	}
	// No flag a caller without flags lacks (--match is Verify's remedy
	// for a VM without a server, a plan verify word kept as it was).
	b, _ := json.Marshal(r)
	if s := strings.ReplaceAll(string(b), "--match", ""); strings.Contains(s, "--") {
		t.Errorf("a flag named: %s", s)
	}

	r, _, err = VerifyCutover(context.Background(), sess, VerifyRequest{Plan: p, NoSecrets: true, Release: nova.ReleaseEvidence{Flag: nova.Zed},
		Flags: VerifyFlags{HostReports: "--host-reports", NoSecrets: "--no-secrets"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.NotChecked[CheckSecret] != "--no-secrets" || r.NotChecked[CheckDomainTPM] != "no --host-reports" {
		t.Errorf("not_checked %v", r.NotChecked)
	}
}
