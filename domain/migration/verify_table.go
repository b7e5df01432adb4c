package migration

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Table is one row per planned VM, worst result first.
func (r *VerifyResult) Table() output.Table {
	t := output.Table{Key: "vms", Verdict: "result", Wrap: []string{"findings", "remedy"},
		Columns: []string{"result", "vm", "verdict", "promised_vtpm", "actual_vtpm", "server_id", "matched_by", "findings", "remedy"}}
	for _, v := range r.VMs {
		f := v.Findings
		if v.EscrowUnconfirmed {
			f = append(append([]string{}, f...), "BitLocker escrow not confirmed in the plan")
		}
		t.Rows = append(t.Rows, output.Record{{Name: "result", Value: v.RowStatus()}, {Name: "vm", Value: v.VM}, {Name: "verdict", Value: v.Verdict}, {Name: "promised_vtpm", Value: v.Promised},
			{Name: "actual_vtpm", Value: v.Actual}, {Name: "server_id", Value: v.ServerID}, {Name: "matched_by", Value: v.MatchedBy},
			{Name: "findings", Value: f}, {Name: "remedy", Value: v.Remedy}})
	}
	t.Footer = append(t.Footer, fmt.Sprintf("%d verified, %d missing, %d not found; BitLocker escrow unconfirmed: %s (Nova %s)",
		r.Verified, r.Missing, r.NotFound, orNone(r.Unconfirmed), r.Release))
	for _, g := range r.Incomplete {
		t.Footer = append(t.Footer, "read failed: "+g.String())
	}
	var keys []string
	for k := range r.NotChecked {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Footer = append(t.Footer, k+" not checked: "+r.NotChecked[k])
	}
	return t
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// Suites is the JUnit view: one case per planned VM and check, so a CI
// system shows which promise broke.
func (r *VerifyResult) Suites() []result.Suite {
	s := result.Suite{Name: "plan verify", Class: "vtpmctl.plan.verify"}
	for _, v := range r.VMs {
		if v.Verdict == NotFound {
			s.Cases = append(s.Cases, result.Case{Name: v.VM, Status: result.Fail, Message: "no server matches this VM", Remedy: v.Remedy})
			continue
		}
		for _, c := range v.Checks {
			s.Cases = append(s.Cases, result.Case{Name: v.VM + " " + c.Check, Status: c.Status, Message: c.Message, Remedy: c.Remedy})
		}
	}
	return []result.Suite{s}
}
