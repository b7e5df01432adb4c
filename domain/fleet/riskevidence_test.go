package fleet

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestRiskGuestEvidence: each guest at risk says what decided its vTPM
// (issue 22 item 3), and one its host's report promoted says why the
// APIs did not (unconfirmed or undecided) in the JSON and in a table
// footer line; a guest its flavor decided gets no footer line. Before,
// a promoted guest looked like any other.
func TestRiskGuestEvidence(t *testing.T) {
	rep := hostcheck.Report{Host: "cmp1", VTPMGuests: []hostcheck.Guest{
		{UUID: "vol", Version: "2.0", Model: "tpm-crb"}, {UUID: "gone", Version: "2.0", Model: "tpm-tis"}}}
	rep.Facts.HypervisorHostname = "cmp1"
	c := Cloud{Hosts: []Host{{Host: "cmp1", Hypervisor: "cmp1", State: "up", Status: "enabled"}}}
	c.Inventory.Guests = nova.NewGuestList([]nova.VTPMGuest{{ServerID: "g0", Name: "flv", Host: "cmp1", Mode: nova.SecretUser, Evidence: nova.EvidenceFlavor}}...)
	c.Inventory.Unconfirmed = []nova.UnconfirmedServer{
		{Guest: nova.VTPMGuest{ServerID: "vol", Name: "win", Host: "cmp1", Mode: nova.SecretUser}, Reason: nova.UnconfirmedVolumeNow}}
	c.Inventory.Undecided = []nova.UndecidedServer{
		{Guest: nova.VTPMGuest{ServerID: "gone", Name: "old", Host: "cmp1", Mode: nova.SecretUser}, Reason: nova.UndecidedImageGone}}
	res := AuditCloud(c, []hostcheck.Report{rep})
	b, err := json.Marshal(&res)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Hosts []struct {
			AtRisk []map[string]any `json:"at_risk_guests"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Hosts) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	want := map[string]map[string]any{
		"g0":   {"evidence": "flavor", "unconfirmed": nil, "undecided": nil},
		"vol":  {"evidence": "host", "unconfirmed": "boot_volume_now", "undecided": nil},
		"gone": {"evidence": "host", "unconfirmed": nil, "undecided": "image_gone"},
	}
	for _, g := range out.Hosts[0].AtRisk {
		id, _ := g["server_id"].(string)
		w, ok := want[id]
		if !ok {
			t.Errorf("unexpected guest at risk %v", g)
			continue
		}
		delete(want, id)
		for k, v := range w {
			if g[k] != v {
				t.Errorf("%s: %s = %v, want %v", id, k, g[k], v)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("not at risk: %v", want)
	}
	foot := strings.Join(res.Table().Footer, "\n")
	for _, s := range []string{"evidence: win (vol) on cmp1", "boot volume", "evidence: old (gone) on cmp1", "image_gone"} {
		if !strings.Contains(foot, s) {
			t.Errorf("footer lacks %q:\n%s", s, foot)
		}
	}
	if strings.Contains(foot, "(g0)") {
		t.Errorf("footer names the flavor guest:\n%s", foot)
	}
	d, _ := res.Drain("cmp1")
	if foot := strings.Join(d.Table().Footer, "\n"); !strings.Contains(foot, "evidence: win (vol) counted") || strings.Contains(foot, "(g0)") {
		t.Errorf("drain footer:\n%s", foot)
	}
}
