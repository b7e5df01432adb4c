package reportpage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestBitLockerSection: the guests of host reports and of the fleet, each
// once (the server's name wins over the domain's), worst risk first, a
// tile that fails on any high, and every text escaped.
func TestBitLockerSection(t *testing.T) {
	host := hostcheck.Report{Host: "cmp1", Checks: []hostcheck.Check{}, VTPMGuests: []hostcheck.Guest{
		{UUID: "u1", Name: "instance-1", BitLocker: &hostcheck.GuestBitLocker{Risk: hostcheck.RiskLow, Certs: hostcheck.Certs2023, NVRAMKept: "yes", TPMStateKept: "yes", Reasons: []string{"all kept"}}},
		{UUID: "u2", Name: "instance-2", BitLocker: &hostcheck.GuestBitLocker{Risk: hostcheck.RiskHigh, Certs: hostcheck.Certs2011, NVRAMKept: "no", TPMStateKept: "yes", Reasons: []string{"NVRAM reset", "<b>db</b> lacks 2023"}}},
	}}
	fr := fleet.HostReport{Report: hostcheck.Report{Host: "cmp1"}, AtRisk: []fleet.RiskGuest{
		{ServerID: "u2", Name: "<script>ceo</script>", BitLockerRisk: hostcheck.RiskHigh},
	}}
	other := fleet.HostReport{Report: hostcheck.Report{Host: "cmp2"}, AtRisk: []fleet.RiskGuest{
		{ServerID: "u3", Name: "hr-db", BitLockerRisk: hostcheck.RiskUnknown, BitLockerReasons: []string{"no host check report for this host"}},
	}}
	fl := fleet.NewResult(nova.Epoxy, []fleet.HostReport{fr, other}, fleet.Summary{})
	rows := bitLockerRows([]hostcheck.Report{host}, fl)
	var order []string
	for _, r := range rows {
		order = append(order, string(r.Risk)+" "+r.Guest)
	}
	if got := strings.Join(order, ", "); got != "high <script>ceo</script>, unknown hr-db, low instance-1" {
		t.Errorf("rows %s", got)
	}
	var b bytes.Buffer
	if err := Render(&b, Inputs{Hosts: []hostcheck.Report{host}, Fleet: fl}, nil); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"<h2>BitLocker recovery risk</h2>", `<td class="risk high">high</td><td>cmp1</td><td>&lt;script&gt;ceo&lt;/script&gt;`,
		"NVRAM reset; &lt;b&gt;db&lt;/b&gt; lacks 2023", "3 vTPM guest(s): 1 high, 0 medium, 1 unknown, 1 low", "no host check report for this host"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(html, "<script>ceo") || strings.Contains(html, "<b>db") {
		t.Error("a guest's text reached the page unescaped")
	}
	if a := bitLockerArea(rows); a.OK {
		t.Errorf("a high guest must fail the tile: %+v", a)
	}
	b.Reset()
	if err := Render(&b, Inputs{Hosts: []hostcheck.Report{{Host: "x", Checks: []hostcheck.Check{}}}}, nil); err != nil || strings.Contains(b.String(), "BitLocker recovery risk") {
		t.Errorf("no guests, no section: %v", err)
	}
}

// TestUpgradeTileNamesFixedBugs: the upgrade tile names the known bugs the
// target fixes in every package (fleet.KnownBugFixes), not those it fixes
// only in a point release.
func TestUpgradeTileNamesFixedBugs(t *testing.T) {
	for _, c := range []struct {
		from, to nova.Release
		want     string
	}{
		{nova.Epoxy, nova.Gazpacho, "fixes known vTPM/UEFI bug(s) 2118888, 2131730/1633447, 2125030, 2122288"},
		{nova.Dalmatian, nova.Epoxy, "0 guest(s) stranded</p>"},
	} {
		u := fleet.UpgradeImpact(c.from, c.to, nil, nova.GuestList{})
		var b bytes.Buffer
		if err := Render(&b, Inputs{Upgrade: &u}, nil); err != nil || !strings.Contains(b.String(), c.want) {
			t.Errorf("%s→%s: %v, page lacks %q", c.from, c.to, err, c.want)
		}
	}
}
