package fleet

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestHostEvidence: a server the APIs left undecided (its image was
// deleted after boot) whose host's report shows its vTPM domain is at
// risk like any other, decided by the host (evidence "host"); one the
// report does not list stays out.
func TestHostEvidence(t *testing.T) {
	rep := hostcheck.Report{Host: "cmp1", VTPMGuests: []hostcheck.Guest{{UUID: "u1", Version: "2.0", Model: "tpm-crb"}}}
	rep.Facts.HypervisorHostname = "cmp1"
	c := Cloud{Hosts: []Host{{Host: "cmp1", Hypervisor: "cmp1", State: "up", Status: "enabled"}}}
	c.Inventory.Guests = nova.NewGuestList([]nova.VTPMGuest{{ServerID: "g0", Host: "cmp1", Mode: nova.SecretUser, Evidence: nova.EvidenceFlavor}}...)
	c.Inventory.Undecided = []nova.UndecidedServer{
		{Guest: nova.VTPMGuest{ServerID: "u1", Host: "cmp1"}, Reason: nova.UndecidedImageGone},
		{Guest: nova.VTPMGuest{ServerID: "u2", Host: "cmp1"}, Reason: nova.UndecidedImageGone},
	}
	res := AuditCloud(c, []hostcheck.Report{rep})
	if res.Summary.AtRisk != 2 {
		t.Fatalf("at risk %d, want the flavor guest and the one its host shows", res.Summary.AtRisk)
	}
	var got *RiskGuest
	for i := range res.Hosts[0].AtRisk {
		if res.Hosts[0].AtRisk[i].ServerID == "u1" {
			got = &res.Hosts[0].AtRisk[i]
		}
	}
	if got == nil {
		t.Fatalf("u1 not at risk: %+v", res.Hosts[0].AtRisk)
	}
	if c.Inventory.Guests.Len() != 1 {
		t.Error("the inventory's guests were changed")
	}
}
