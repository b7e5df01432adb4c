package vtpmsecret

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// RowStatus is the guest's row status: its worst finding (a guest whose
// project was not auditable is skip).
func (g GuestResult) RowStatus() result.Status {
	ss := make([]result.Status, len(g.Findings))
	for i, f := range g.Findings {
		ss[i] = f.Status
	}
	return result.Worst(ss...)
}

// Only is the audit with only the guests whose status f keeps. The
// summary, warnings and partial reads stay those of the whole run: a
// view never changes what the audit found.
func (r Result) Only(f result.Filter) Result {
	if len(f) == 0 {
		return r
	}
	if r.walk != nil {
		r.only = f
		return r
	}
	kept := make([]GuestResult, 0, len(r.Guests))
	for _, g := range r.Guests {
		if f.Keeps(g.RowStatus()) {
			kept = append(kept, g)
		}
	}
	r.Guests = kept
	return r
}

// SummaryView is the audit's summary alone. Its JSON is the audit's
// document, same schema, with the per-guest and per-secret lists empty
// (what the run could not see, warnings and partial reads, stays); its
// table is the counts, one a line.
type SummaryView struct{ *Result }

// SummaryView leaves out the lists; r is not changed.
func (r Result) SummaryView() SummaryView {
	r.Guests, r.walk = []GuestResult{}, nil
	r.Orphans = nil
	r.SkippedSecrets = nil
	r.NotAuditable = map[string]NotAuditable{}
	return SummaryView{&r}
}

// Table is the summary's counts, one a line; the warnings follow.
func (v SummaryView) Table() output.Table {
	s := v.Summary
	t := output.NewSummary("guests")
	add := t.Add
	add("guests", s.Guests)
	add("secrets", s.Secrets)
	add("ok", s.OK)
	add("failed", s.Failed)
	add("orphans", s.Orphans)
	add("not_auditable", s.NotAuditable)
	add("undetermined", s.Undetermined)
	if c := s.Consumers; c != nil {
		add("protected", c.Protected)
		add("unprotected", c.Unprotected)
		add("mismatched_consumer", c.Mismatched)
	}
	add("nova_release", nova.Label(v.Release, v.Candidates))
	for _, w := range v.Warnings {
		t.Footer = append(t.Footer, "warning: "+w)
	}
	for _, g := range v.Incomplete {
		t.Footer = append(t.Footer, "partial read: "+g.String())
	}
	if n := len(v.Undecided); n > 0 {
		total := 0
		for _, c := range v.Undecided {
			total += c
		}
		t.Footer = append(t.Footer, fmt.Sprintf("undecided: %d server(s) whose vTPM nothing decided", total))
	}
	return t.Table
}
