package migration

import (
	"slices"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// RowStatus is the VM's row status: fail when a promise is not kept or no
// server matched it, else its worst check (warn, skip or pass).
func (v VMVerdict) RowStatus() result.Status {
	if v.Verdict == Missing || v.Verdict == NotFound {
		return result.Fail
	}
	ss := make([]result.Status, len(v.Checks))
	for i, c := range v.Checks {
		ss[i] = c.Status
	}
	return result.Worst(ss...)
}

// Only is the verification with only the VMs whose status f keeps; the
// counts, the checks not run and the failed reads stay the whole run's.
func (r VerifyResult) Only(f result.Filter) VerifyResult {
	if len(f) == 0 {
		return r
	}
	kept := make([]VMVerdict, 0, len(r.VMs))
	for _, v := range r.VMs {
		if f.Keeps(v.RowStatus()) {
			kept = append(kept, v)
		}
	}
	r.VMs = kept
	return r
}

// VerifySummaryView is the verification's summary alone: its document,
// same schema, with the VMs and the unconfirmed escrows empty (the
// counts verified, missing, not_found stay, and the escrows are counted).
type VerifySummaryView struct {
	*VerifyResult
	EscrowUnconfirmed int `json:"bitlocker_escrow_unconfirmed_count"`
}

// SummaryView counts, then leaves out the lists; r is not changed.
func (r VerifyResult) SummaryView() VerifySummaryView {
	n := len(r.Unconfirmed)
	r.VMs, r.Unconfirmed = []VMVerdict{}, []string{}
	return VerifySummaryView{VerifyResult: &r, EscrowUnconfirmed: n}
}

// Table is the counts, one a line; the checks not run and the failed
// reads follow.
func (v VerifySummaryView) Table() output.Table {
	t := output.NewSummary("vms")
	add := t.Add
	add("verified", v.Verified)
	add("missing", v.Missing)
	add("not_found", v.NotFound)
	add("bitlocker_escrow_unconfirmed", v.EscrowUnconfirmed)
	add("nova_release", v.Release)
	for _, g := range v.Incomplete {
		t.Footer = append(t.Footer, "read failed: "+g.String())
	}
	for _, k := range sortedKeys(v.NotChecked) {
		t.Footer = append(t.Footer, k+" not checked: "+v.NotChecked[k])
	}
	return t.Table
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
