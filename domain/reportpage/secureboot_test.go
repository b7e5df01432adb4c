package reportpage

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// TestSecureBootSection: the page counts each host's vTPM guests (those
// of the host reports and the fleet's, each once) by certificates and by
// remedy; a fleet guest without a view is unknown in both; the tile
// fails while a guest needs the update or a package; the remedies are
// said in the caller's words; the summary view keeps the tile only.
func TestSecureBootSection(t *testing.T) {
	bl := func(c hostcheck.Certs, kept hostcheck.TriState) *hostcheck.GuestBitLocker {
		return &hostcheck.GuestBitLocker{Risk: hostcheck.RiskMedium, Certs: c, NVRAMKept: kept, TPMStateKept: "yes", CertsRemedy: hostcheck.CertRemedyOf(c, kept)}
	}
	cmp1 := hostcheck.Report{Host: "cmp1", Checks: []hostcheck.Check{}, VTPMGuests: []hostcheck.Guest{
		{UUID: "u1", Name: "instance-1", BitLocker: bl(hostcheck.Certs2011, hostcheck.Yes)},
		{UUID: "u2", Name: "instance-2", BitLocker: bl(hostcheck.Certs2011, hostcheck.Yes)},
		{UUID: "u3", Name: "instance-3", BitLocker: bl(hostcheck.Certs2023, hostcheck.Yes)},
	}}
	cmp2 := hostcheck.Report{Host: "cmp2", Checks: []hostcheck.Check{}, VTPMGuests: []hostcheck.Guest{
		{UUID: "u4", Name: "instance-4", BitLocker: bl(hostcheck.CertsPartial, hostcheck.No)},
	}}
	// The fleet repeats u1 (counted once) and adds u5, which no report has.
	fl := fleet.NewResult(nova.Gazpacho, []fleet.HostReport{
		{Report: hostcheck.Report{Host: "cmp1"}, AtRisk: []fleet.RiskGuest{{ServerID: "u1", Name: "win-1", BitLockerRisk: hostcheck.RiskMedium}}},
		{Report: hostcheck.Report{Host: "cmp3"}, AtRisk: []fleet.RiskGuest{{ServerID: "u5", Name: "hr-db", BitLockerRisk: hostcheck.RiskUnknown, BitLockerReasons: []string{"no host check report for this host"}}}},
	}, fleet.Summary{})
	rows := bitLockerRows([]hostcheck.Report{cmp1, cmp2}, fl)
	hosts := certsHosts(rows)
	type want struct {
		host     string
		guests   int
		certs    string
		remedies []int // package-update, update-nvram, unknown, none
	}
	var got []want
	for _, h := range hosts {
		got = append(got, want{h.Host, h.Guests, h.Certs, h.Remedies()})
	}
	// Hosts in the order their first row comes (worst risk first: cmp3's
	// unknown after the others' medium).
	if exp := []want{{"cmp1", 3, "2 2011, 1 2023", []int{0, 2, 0, 1}}, {"cmp2", 1, "1 partial", []int{1, 0, 0, 0}}, {"cmp3", 1, "1 unknown", []int{0, 0, 1, 0}}}; !reflect.DeepEqual(got, exp) {
		t.Errorf("hosts %+v\nwant %+v", got, exp)
	}
	if a := certsArea(hosts); a.OK || a.Detail != "5 vTPM guest(s): 2 2011, 1 partial, 1 unknown, 1 2023; to get them: 1 package-update, 2 update-nvram, 1 unknown, 1 none" {
		t.Errorf("tile %+v", a)
	}
	if a := certsArea(certsHosts([]RiskRow{{Host: "x", Certs: hostcheck.Certs2023, Remedy: hostcheck.CertRemedyNone}, {Host: "x", Certs: hostcheck.CertsUnknown, Remedy: hostcheck.CertRemedyUnknown}})); !a.OK {
		t.Errorf("nothing to update, yet the tile fails: %+v", a)
	}

	var b bytes.Buffer
	if err := Render(&b, Inputs{Hosts: []hostcheck.Report{cmp1, cmp2}, Fleet: fl}, cliLike{}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, w := range []string{"<h2>Secure Boot 2023 certificates</h2>", "<th>package-update</th><th>update-nvram</th><th>unknown</th><th>none</th>",
		"<tr><td>cmp1</td><td>3</td><td>2 2011, 1 2023</td><td>0</td><td>2</td><td>0</td><td>1</td></tr>",
		"<td>hr-db <span class=\"remedy\">u5</span></td><td>unknown</td><td>unknown</td>", "(prog host secure-boot update)", "Windows cannot add the KEK itself",
		"<h2>Secure Boot 2023 certificates</h2><span class=\"verdict fail\">"} {
		if !strings.Contains(html, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	b.Reset()
	if err := RenderView(&b, Inputs{Hosts: []hostcheck.Report{cmp1, cmp2}, Fleet: fl}, View{Summary: true}, nil); err != nil {
		t.Fatal(err)
	}
	if html := b.String(); strings.Contains(html, "<th>update-nvram</th>") || !strings.Contains(html, "to get them: 1 package-update, 2 update-nvram") {
		t.Errorf("summary view: the per-host table, or no tile:\n%s", html)
	}
	if w := (Inputs{Hosts: []hostcheck.Report{cmp1}}).Worst(); w != result.Pass {
		t.Errorf("counts are no finding: worst %s", w)
	}
}
