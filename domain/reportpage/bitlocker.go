package reportpage

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// RiskRow is one guest in the page's BitLocker section.
type RiskRow struct {
	Host, Guest, UUID  string
	Risk               hostcheck.Risk
	Certs              hostcheck.Certs
	Remedy             hostcheck.CertRemedy // what brings its NVRAM to the 2023 certificates
	NVRAMKept, TPMKept hostcheck.TriState
	Reasons            []string
}

// bitLockerRows: the guests of the host check reports, then the fleet's
// at-risk guests (their server names; a guest no host report has comes
// in as the fleet saw it), worst risk first.
func bitLockerRows(hosts []hostcheck.Report, fl *fleet.Result) []RiskRow {
	var rows []RiskRow
	at := map[string]int{} // UUID → row
	for _, r := range hosts {
		for _, g := range r.VTPMGuests {
			if b := g.BitLocker; b != nil {
				at[g.UUID] = len(rows)
				rows = append(rows, RiskRow{r.Host, g.Name, g.UUID, b.Risk, b.Certs, b.RemedyOfCerts(), b.NVRAMKept, b.TPMStateKept, b.Reasons})
			}
		}
	}
	if fl != nil {
		for _, r := range fl.Hosts {
			for i, g := range r.AtRisk {
				if g.BitLockerRisk == "" {
					continue
				}
				if j, ok := at[g.ServerID]; ok {
					rows[j].Guest = g.Name // the server's name, not the domain's
					continue
				}
				// No view of it: its certificates are unknown, like its risk.
				row := RiskRow{Host: r.Host, Guest: g.Name, UUID: g.ServerID, Risk: g.BitLockerRisk, Reasons: g.BitLockerReasons,
					Certs: hostcheck.CertsUnknown, Remedy: hostcheck.CertRemedyUnknown}
				if i < len(r.VTPMGuests) && r.VTPMGuests[i].UUID == g.ServerID && r.VTPMGuests[i].BitLocker != nil {
					b := r.VTPMGuests[i].BitLocker
					row.Certs, row.Remedy, row.NVRAMKept, row.TPMKept = b.Certs, b.RemedyOfCerts(), b.NVRAMKept, b.TPMStateKept
				}
				at[g.ServerID] = len(rows)
				rows = append(rows, row)
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Risk.Rank() != b.Risk.Rank() {
			return a.Risk.Rank() < b.Risk.Rank()
		}
		return a.Host+"\x00"+a.Guest < b.Host+"\x00"+b.Guest
	})
	return rows
}

// bitLockerArea counts the rows by level; it fails when any is high.
func bitLockerArea(rows []RiskRow) Area {
	n := map[hostcheck.Risk]int{}
	for _, r := range rows {
		n[r.Risk]++
	}
	var parts []string
	for _, l := range hostcheck.RiskLevels {
		parts = append(parts, fmt.Sprintf("%d %s", n[l], l))
	}
	ok := n[hostcheck.RiskHigh] == 0
	return Area{Name: "BitLocker recovery risk", Verdict: verdict(ok), Detail: fmt.Sprintf("%d vTPM guest(s): %s", len(rows), strings.Join(parts, ", ")), OK: ok}
}
