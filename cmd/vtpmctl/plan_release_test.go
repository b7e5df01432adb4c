package main

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// plan import says which Nova it targets, on stderr and in the plan, and
// takes the release from the named cloud: a Zed cloud (compute 2.93) is
// never offered hw:tpm_secret_security, which Zed's Nova does not know.
func TestPlanImportTargetsTheCloudsRelease(t *testing.T) {
	inventory := []string{"plan", "import", "--rvtools", "../../examples/inventory/RVTools_tabvInfo.csv",
		"--govc", "../../examples/inventory/govc-vm.info.json", "--flavors", "../../examples/catalogue.yaml"}
	for _, tc := range []struct {
		name      string
		cloud     bool
		args      []string
		stderr    string
		release   string
		secretSec bool // the plan mentions hw:tpm_secret_security
	}{
		{"default", false, nil, "vtpmctl: plan import: targeting Nova 2026.1 Gazpacho (nova 33) (the default; --nova-release or --os-cloud to target another)", "2026.1", true},
		{"flag", false, []string{"--nova-release", "2024.2"}, "vtpmctl: plan import: targeting Nova 2024.2 Dalmatian (nova 30) (--nova-release)", "2024.2", false},
		{"zed cloud", true, nil, "vtpmctl: plan import: targeting Nova Zed (nova 26) (cloud fake)", "zed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pre []string
			if tc.cloud {
				c := fakecloud.New(t).Standard()
				defer func() {
					if n := len(c.Sent()); n != 2 { // the token, the version document
						t.Errorf("%d requests: %q", n, c.Requests)
					}
				}()
				pre = []string{"--os-cloud", "fake"}
			}
			out, errs, code := runCLI(t, append(append(pre, inventory...), tc.args...)...)
			if code != 0 || !strings.Contains(errs, tc.stderr+"\n") {
				t.Fatalf("exit %d, stderr:\n%s\nwant the line %q", code, errs, tc.stderr)
			}
			if !strings.Contains(out, "  nova_release: \""+tc.release+"\"\n") && !strings.Contains(out, "  nova_release: "+tc.release+"\n") {
				t.Errorf("the plan does not name release %s:\n%.600s", tc.release, out)
			}
			if got := strings.Contains(out, "hw:tpm_secret_security"); got != tc.secretSec {
				t.Errorf("hw:tpm_secret_security in the plan: %v, want %v", got, tc.secretSec)
			}
		})
	}
}
