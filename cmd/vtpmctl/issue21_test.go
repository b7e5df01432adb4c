package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// ambiguousCloud is the fixture cloud answering compute API maximum 2.96:
// 2024.1 or 2024.2, whose vTPM rules differ.
func ambiguousCloud(t *testing.T) *fakecloud.Cloud {
	c := fixtureCloud(t)
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(200, `{"version":{"id":"v2.1","status":"CURRENT","version":"2.96","min_version":"2.1"}}`))
	return c
}

// TestUpgradeTargetSameForBoth: a release the cloud leaves open (2024.1
// at 2.96) is accepted by upgrade check --to and report --upgrade-to
// alike; one older than every candidate is refused by both, exit 2.
func TestUpgradeTargetSameForBoth(t *testing.T) {
	c := ambiguousCloud(t)
	html := filepath.Join(t.TempDir(), "r.html")
	for _, tc := range []struct {
		to   string
		code int
	}{{"2024.1", 0}, {"2024.2", 0}, {"2023.2", 2}} {
		_, errs, code := runCLI(t, "--os-cloud", "fake", "upgrade", "check", "--to", tc.to)
		if (code == 2) != (tc.code == 2) {
			t.Errorf("upgrade check --to %s: exit %d %s", tc.to, code, errs)
		}
		listed := c.Count("GET /compute/v2.1/servers")
		_, errs, code = runCLI(t, "--os-cloud", "fake", "report", "--out", html, "--upgrade-to", tc.to)
		if code != tc.code {
			t.Errorf("report --upgrade-to %s: exit %d, want %d: %s", tc.to, code, tc.code, errs)
		}
		if tc.code == 2 && (!strings.Contains(errs, "--upgrade-to "+tc.to+" is older than the cloud's") || c.Count("GET /compute/v2.1/servers") != listed) {
			t.Errorf("report --upgrade-to %s: refused late or wrongly: %s", tc.to, errs)
		}
		if tc.code == 0 {
			if b, _ := os.ReadFile(html); !strings.Contains(string(b), "Upgrade to "+tc.to) {
				t.Errorf("report --upgrade-to %s: no upgrade section", tc.to)
			}
		}
	}
}

// TestReleaseHintNamesTheCommandsFlag: the open release's warning tells
// each command's own flag.
func TestReleaseHintNamesTheCommandsFlag(t *testing.T) {
	ambiguousCloud(t)
	_, errs, _ := runCLI(t, "--os-cloud", "fake", "upgrade", "check", "--to", "2026.1")
	if !strings.Contains(errs, "pass --from to settle") || strings.Contains(errs, "--nova-release") {
		t.Errorf("upgrade check: %s", errs)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	_, errs, _ = runCLI(t, "--os-cloud", "fake", "report", "--out", html)
	if !strings.Contains(errs, "pass --nova-release to settle") {
		t.Errorf("report: %s", errs)
	}
	// and report has that flag: given, no warning
	_, errs, code := runCLI(t, "--os-cloud", "fake", "report", "--out", html, "--nova-release", "2024.1")
	if code != 0 || strings.Contains(errs, "to settle") {
		t.Errorf("report --nova-release: exit %d %s", code, errs)
	}
}

// TestFlavorSizeConflictIsUsage: a flavor name that exists with another
// size is a bad value (docs/output.md, Exit status: 2), nothing is
// written, and flavor create and plan apply agree (they said 1 and 2).
func TestFlavorSizeConflictIsUsage(t *testing.T) {
	c := fixtureCloud(t)
	_, errs, code := runCLI(t, "--os-cloud", "fake", "flavor", "create", fakecloud.FixtureFlavor, "--vcpus", "8", "--ram", "64", "--disk", "1", "--tpm-version", "2.0")
	if code != 2 || !strings.Contains(errs, "flavor "+fakecloud.FixtureFlavor+" exists with 1 vCPU, 64 MiB, 1 GiB, public, not 8 vCPU") ||
		!strings.Contains(errs, "choose another name") || strings.Count(errs, "\n") != 1 {
		t.Errorf("flavor create: exit %d %s", code, errs)
	}
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("version: 1\nimages: []\nflavors:\n- name: "+fakecloud.FixtureFlavor+"\n  vcpus: 8\n  ram: 64\n  disk: 1\n  tpm_version: \"2.0\"\nvms: []\n"), 0o600)
	_, errs, code = runCLI(t, "--os-cloud", "fake", "plan", "apply", plan, "--yes")
	if code != 2 || !strings.Contains(errs, "flavors[0]: flavor "+fakecloud.FixtureFlavor+" exists with 1 vCPU") || !strings.Contains(errs, "rename it in the plan") {
		t.Errorf("plan apply: exit %d %s", code, errs)
	}
	if n := c.Count("POST /compute") + c.Count("PUT /compute"); n != 0 {
		t.Errorf("%d writes", n)
	}
}
