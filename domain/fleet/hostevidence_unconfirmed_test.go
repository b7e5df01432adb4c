package fleet

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestHostEvidenceUnconfirmed: a server decided "no vTPM" from its boot
// volume or image as they are now (untagged since boot) whose host's
// report shows its vTPM domain is a guest at risk, decided by the host
// (evidence "host", the domain's version and model); before, it was left
// out. One the report does not list stays out.
func TestHostEvidenceUnconfirmed(t *testing.T) {
	rep := hostcheck.Report{Host: "cmp1", VTPMGuests: []hostcheck.Guest{
		{UUID: "vol", Version: "2.0", Model: "tpm-crb"}, {UUID: "img", Version: "2.0", Model: "tpm-tis"}}}
	rep.Facts.HypervisorHostname = "cmp1"
	c := Cloud{Hosts: []Host{{Host: "cmp1", Hypervisor: "cmp1", State: "up", Status: "enabled"}}}
	c.Inventory.Guests = nova.NewGuestList([]nova.VTPMGuest{{ServerID: "g0", Host: "cmp1", Mode: nova.SecretUser, Evidence: nova.EvidenceFlavor}}...)
	c.Inventory.Unconfirmed = []nova.UnconfirmedServer{
		{Guest: nova.VTPMGuest{ServerID: "vol", Host: "cmp1", Mode: nova.SecretUser}, Reason: nova.UnconfirmedVolumeNow},
		{Guest: nova.VTPMGuest{ServerID: "img", Host: "cmp1", Mode: nova.SecretUser}, Reason: nova.UnconfirmedImageNow},
		{Guest: nova.VTPMGuest{ServerID: "plain", Host: "cmp1", Mode: nova.SecretUser}, Reason: nova.UnconfirmedVolumeNow},
	}
	got := map[string]nova.VTPMGuest{}
	gs, _ := withHostEvidence(c.Inventory, ReportIndex([]hostcheck.Report{rep}))
	for _, g := range gs.All() {
		got[g.ServerID] = g
	}
	if len(got) != 3 || got["vol"].Evidence != nova.EvidenceHost || got["vol"].Model != "tpm-crb" ||
		got["img"].Evidence != nova.EvidenceHost || got["img"].Model != "tpm-tis" || got["img"].Version != "2.0" {
		t.Errorf("guests %+v", got)
	}
	res := AuditCloud(c, []hostcheck.Report{rep})
	if res.Summary.AtRisk != 3 || len(res.Hosts) != 1 || len(res.Hosts[0].AtRisk) != 3 {
		t.Fatalf("at risk %d, want the flavor guest and the two its host shows: %+v", res.Summary.AtRisk, res.Hosts)
	}
	if c.Inventory.Guests.Len() != 1 {
		t.Error("the inventory's guests were changed")
	}
}
