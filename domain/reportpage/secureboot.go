package reportpage

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
)

// CertsHost is one host in the page's Secure Boot certificates section:
// its vTPM guests counted by class and by remedy.
type CertsHost struct {
	Host   string
	Guests int
	Counts *hostcheck.SecureBootCounts
	// Certs: the classes it has, "3 2011, 1 2023" (those at 0 left out).
	Certs string
}

// Remedy counts in the section's column order (hostcheck.CertRemedies).
func (h CertsHost) Remedies() []int {
	out := make([]int, len(hostcheck.CertRemedies))
	for i, r := range hostcheck.CertRemedies {
		out[i] = h.Counts.ByRemedy[r]
	}
	return out
}

// certsHosts counts the BitLocker rows (every guest of the reports and
// of the fleet, each once) per host, in the order hosts first appear.
func certsHosts(rows []RiskRow) []CertsHost {
	var out []CertsHost
	at := map[string]int{}
	for _, r := range rows {
		i, ok := at[r.Host]
		if !ok {
			i = len(out)
			at[r.Host] = i
			out = append(out, CertsHost{Host: r.Host, Counts: hostcheck.NewSecureBootCounts()})
		}
		out[i].Guests++
		out[i].Counts.Add(&hostcheck.GuestBitLocker{Certs: r.Certs, CertsRemedy: r.Remedy})
	}
	for i := range out {
		out[i].Certs = nonZero(out[i].Counts)
	}
	return out
}

func nonZero(c *hostcheck.SecureBootCounts) string {
	var parts []string
	for _, k := range hostcheck.CertsClasses {
		if n := c.ByCerts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

// certsArea is the fleet's tile: it fails while a guest's NVRAM lacks
// the 2023 certificates and a remedy is known (unknown does not fail,
// as in the BitLocker tile).
func certsArea(hosts []CertsHost) Area {
	all := hostcheck.NewSecureBootCounts()
	n := 0
	for _, h := range hosts {
		all.Merge(h.Counts)
		n += h.Guests
	}
	var rem []string
	for _, r := range hostcheck.CertRemedies {
		rem = append(rem, fmt.Sprintf("%d %s", all.ByRemedy[r], r))
	}
	ok := all.ByRemedy[hostcheck.CertRemedyUpdateNVRAM]+all.ByRemedy[hostcheck.CertRemedyPackageUpdate] == 0
	return Area{Name: "Secure Boot 2023 certificates", Verdict: verdict(ok), Detail: fmt.Sprintf("%d vTPM guest(s): %s; to get them: %s", n, nonZero(all), strings.Join(rem, ", ")), OK: ok}
}

// certsRemedyText says what each remedy is, in the caller's words.
func certsRemedyText(w advice.Words) string {
	return "update-nvram: this host keeps the guest's NVRAM: add the certificates to it on the host, guest stopped and BitLocker suspended or its recovery key escrowed (" +
		w.Command(advice.SecureBootUpdate) + "); Windows cannot add the KEK itself. " +
		"package-update: this host's Nova recreates the NVRAM from the template at every start: the template must enrol them (Debian's ovmf 2026.08, forky; bookworm's and trixie's enrol the 2011 set only), or Nova must keep NVRAM first. " +
		"unknown: the NVRAM could not be read, whether the host keeps it is unknown, or no host check report has the guest."
}

// CertRemedies are the section's remedy columns.
func (p page) CertRemedies() []hostcheck.CertRemedy { return hostcheck.CertRemedies }
