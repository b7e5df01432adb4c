package fleet

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestTraitsHostOffersOnlySomeModes: on 2026.1 [libvirt]
// supported_tpm_secret_security may offer host or deployment mode without
// user (host check passes it). Guests that ask for such a mode land there,
// so the fleet must not call the host failing nor say no vTPM guest fits;
// it says which guests do, and that a guest naming no mode (user) does not.
func TestTraitsHostOffersOnlySomeModes(t *testing.T) {
	tpm := []string{"COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_CRB", "COMPUTE_SECURITY_TPM_TIS"}
	with := func(modes ...nova.SecretMode) []string {
		out := append([]string{}, tpm...)
		for _, m := range modes {
			out = append(out, m.Trait())
		}
		return out
	}
	cases := []struct {
		name    string
		traits  []string
		status  hostcheck.Status
		want    []string
		failing int
	}{
		{"host mode only", with(nova.SecretHost), Pass, []string{"host mode", "secret security host", "hw:tpm_secret_security=host", "user"}, 0},
		{"deployment mode only", with(nova.SecretDeployment), Pass, []string{"secret security deployment", "hw:tpm_secret_security=deployment", "user"}, 0},
		{"host and deployment", with(nova.SecretHost, nova.SecretDeployment), Pass, []string{"secret security host/deployment", "hw:tpm_secret_security=host or deployment"}, 0},
		{"user mode too: every guest fits", with(nova.SecretUser, nova.SecretHost), Pass, []string{"TPM 2.0 (TIS), TPM 2.0 (CRB), host mode, secret security user/host"}, 0},
		{"no mode at all", with(), Fail, []string{"no vTPM guest can be scheduled here", "missing COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"}, 1},
		{"a mode but no model trait", []string{"COMPUTE_SECURITY_TPM_2_0", nova.SecretHost.Trait()}, Fail, []string{"no vTPM guest can be scheduled here"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reps, sum := AuditHosts(nova.Gazpacho, []Host{{Host: "a", State: "up", Status: "enabled", Traits: c.traits}}, nil, nova.GuestList{})
			got := find(&reps[0], "TRAITS")
			if got.Status != c.status || sum.Failing != c.failing {
				t.Errorf("TRAITS %s (%d failing), want %s (%d): %s", got.Status, sum.Failing, c.status, c.failing, got.Message)
			}
			for _, w := range c.want {
				if !strings.Contains(got.Message, w) {
					t.Errorf("TRAITS message lacks %q: %s", w, got.Message)
				}
			}
		})
	}
}
