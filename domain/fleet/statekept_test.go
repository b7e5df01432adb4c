package fleet

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestStateKeptReachesEachGuest: what a host's check report says of its
// TPM state (installed Nova code, libvirt) reaches each of its guests in
// the fleet audit, and the host's KEEP-TPM-STATE finding travels with it.
func TestStateKeptReachesEachGuest(t *testing.T) {
	rep := hostcheck.Report{Host: "cmp1"}
	rep.Facts.HypervisorHostname = "cmp1.example"
	rep.Facts.StateKept = &hostcheck.StateKept{Kept: hostcheck.No, Evidence: "nova/virt/libvirt/guest.py lacks the fix"}
	rep.Checks = []hostcheck.Check{{ID: "KEEP-TPM-STATE", Status: hostcheck.Warn, Message: "a stop wipes the TPM"}}
	hosts := []Host{{Host: "cmp1", Hypervisor: "cmp1.example", State: "up", Status: "enabled"}}
	guests := []nova.VTPMGuest{{ServerID: "g1", Host: "cmp1", Mode: nova.SecretUser}}
	out, _ := AuditHosts(nova.Epoxy, hosts, ReportIndex([]hostcheck.Report{rep}), nova.NewGuestList(guests...))
	if len(out) != 1 || len(out[0].AtRisk) != 1 || out[0].AtRisk[0].StateKept != hostcheck.No {
		t.Fatalf("at-risk guests: %+v", out)
	}
	for _, g := range out[0].VTPMGuests {
		if g.StateKept != hostcheck.No {
			t.Errorf("guest %s: state kept %q, want no", g.UUID, g.StateKept)
		}
	}
	found := false
	for _, c := range out[0].Checks {
		found = found || c.ID == "KEEP-TPM-STATE" && c.Status == hostcheck.Warn
	}
	if !found {
		t.Errorf("fleet lost the host's KEEP-TPM-STATE: %+v", out[0].Checks)
	}
}
