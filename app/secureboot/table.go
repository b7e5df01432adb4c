package secureboot

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// Table is one row per UEFI guest; the host's verdict and the counts
// follow. Columns are the JSON keys, so -c names the same in every format.
func (r *StatusResult) Table() output.Table {
	t := output.Table{Key: "guests",
		Columns: []string{"domain", "uuid", "server_name", "state", "vtpm", "secure_boot", "nvram", "pk", "kek", "db", "dbx_entries",
			"certificates", "missing_2023", "would_add", "nvram_kept", "remedy", "remedy_detail", "error"},
		Default: []string{"domain", "state", "certificates", "kek", "db", "dbx_entries", "nvram_kept", "remedy"},
		Wrap:    []string{"pk", "kek", "db", "missing_2023", "would_add", "remedy_detail", "error"}}
	for _, g := range r.Guests {
		pk := ""
		if g.PK != nil {
			pk = g.PK.Subject + " (owner " + g.PK.Owner.String() + ")"
		}
		t.Rows = append(t.Rows, output.Record{{Name: "domain", Value: g.Domain}, {Name: "uuid", Value: g.UUID}, {Name: "server_name", Value: g.ServerName},
			{Name: "state", Value: stateText(g)}, {Name: "vtpm", Value: yesNo(g.VTPM)}, {Name: "secure_boot", Value: yesNo(g.SecureBoot)},
			{Name: "nvram", Value: g.NVRAM}, {Name: "pk", Value: pk}, {Name: "kek", Value: certLines(g.KEK)}, {Name: "db", Value: certLines(g.DB)},
			{Name: "dbx_entries", Value: g.DBXEntries}, {Name: "certificates", Value: string(g.Certs)}, {Name: "missing_2023", Value: g.Missing},
			{Name: "would_add", Value: addLines(g.WouldAdd)}, {Name: "nvram_kept", Value: keptText(g.NVRAMKept)},
			{Name: "remedy", Value: string(g.Remedy)}, {Name: "remedy_detail", Value: g.Detail}, {Name: "error", Value: g.Error}})
	}
	if r.Host != "" {
		t.Footer = append(t.Footer, fmt.Sprintf("host %s, Nova %s: guests' NVRAM kept across stop/start: %s (%s); guests read from %s",
			r.Host, r.NovaRelease, r.NVRAMKept, r.NVRAMKeptEvidence, r.Source))
	}
	s := r.Summary
	var certs, rems []string
	for _, c := range []hostcheck.Certs{hostcheck.Certs2011, hostcheck.CertsPartial, hostcheck.Certs2023, hostcheck.CertsOther, hostcheck.CertsNoKeys, hostcheck.CertsNoNVRAM, hostcheck.CertsUnreadable} {
		if n := s.ByCerts[c]; n > 0 {
			certs = append(certs, fmt.Sprintf("%s %d", c, n))
		}
	}
	for _, m := range Remedies {
		if n := s.ByRemedy[m]; n > 0 {
			rems = append(rems, fmt.Sprintf("%s %d", m, n))
		}
	}
	line := fmt.Sprintf("%d UEFI guest(s)", s.Guests)
	if s.Guests > 0 {
		line += "; certificates: " + strings.Join(certs, ", ") + "; remedy: " + strings.Join(rems, ", ")
	}
	if s.BIOSGuests > 0 {
		line += fmt.Sprintf("; %d BIOS guest(s) not listed", s.BIOSGuests)
	}
	t.Footer = append(t.Footer, line)
	return t
}

// Table is one row per file; the counts follow.
func (r *UpdateResult) Table() output.Table {
	t := output.Table{Key: "files",
		Columns: []string{"domain", "uuid", "server_name", "state", "nvram", "action", "refusal", "added", "left_out", "bytes_before", "bytes_after", "store_size", "backup", "detail"},
		Default: []string{"domain", "nvram", "action", "added", "detail"},
		Wrap:    []string{"refusal", "added", "left_out", "detail"}}
	for _, f := range r.Files {
		t.Rows = append(t.Rows, output.Record{{Name: "domain", Value: f.Domain}, {Name: "uuid", Value: f.UUID}, {Name: "server_name", Value: f.ServerName},
			{Name: "state", Value: string(f.State)}, {Name: "nvram", Value: f.NVRAM}, {Name: "action", Value: string(f.Action)}, {Name: "refusal", Value: string(f.Refusal)},
			{Name: "added", Value: addLines(f.Added)}, {Name: "left_out", Value: leftLines(f.LeftOut)}, {Name: "bytes_before", Value: f.BytesBefore}, {Name: "bytes_after", Value: f.BytesAfter},
			{Name: "store_size", Value: f.StoreSize}, {Name: "backup", Value: f.Backup}, {Name: "detail", Value: f.Detail}})
	}
	s := r.Summary
	t.Footer = append(t.Footer, fmt.Sprintf("updated %d, would update %d, unchanged %d, skipped %d, refused %d, failed %d",
		s.Updated, s.WouldUpdate, s.Unchanged, s.Skipped, s.Refused, s.Failed))
	for _, f := range r.Files {
		if f.Backup != "" {
			t.Footer = append(t.Footer, fmt.Sprintf("%s: store %d of %d bytes in use, was %d; the original is kept at %s", f.NVRAM, f.BytesAfter, f.StoreSize, f.BytesBefore, f.Backup))
		}
	}
	return t
}

func certLines(l []CertInfo) []string {
	out := make([]string, len(l))
	for i, c := range l {
		when := c.NotAfter.Format("2006-01-02")
		if c.Expired {
			when = "expired " + when
		}
		out[i] = c.Subject + " (" + when + ")"
	}
	return out
}

func addLines(l []Addition) []string {
	out := make([]string, len(l))
	for i, a := range l {
		out[i] = a.Variable + " " + a.Subject
	}
	return out
}

func stateText(g Guest) string {
	switch {
	case g.Domain == "":
		return "" // a file alone
	case g.State == "":
		return "unknown"
	case g.ManagedSave:
		return string(g.State) + ", saved"
	}
	return string(g.State)
}

func yesNo(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "yes"
	}
	return "no"
}

func keptText(k hostcheck.TriState) string {
	if k == "" {
		return "not asked"
	}
	return string(k)
}

// leftLines is one line per certificate left out: its subject and why.
func leftLines(l []LeftOut) string {
	var lines []string
	for _, c := range l {
		lines = append(lines, c.Variable+": "+c.Subject+" ("+c.Reason+")")
	}
	return strings.Join(lines, "\n")
}
