package hostcheck

import (
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Only is the report with only the checks whose status f keeps; the
// summary stays the whole run's. A filtered report is a view for
// people: hosts audit --host-reports wants the whole one.
func (r Report) Only(f result.Filter) Report {
	if len(f) == 0 {
		return r
	}
	kept := make([]Check, 0, len(r.Checks))
	for _, c := range r.Checks {
		if f.Keeps(c.Status) {
			kept = append(kept, c)
		}
	}
	r.Checks = kept
	return r
}

// SummaryView is the report's summary alone. Its JSON is the report's
// document, same schema, with the checks and guests empty (the host,
// its release, traits and facts stay); its table is the counts.
type SummaryView struct {
	*Report
	guests int // the vTPM guests, counted before the list was left out
}

// SummaryView leaves out the lists; r is not changed.
func (r Report) SummaryView() SummaryView {
	n := len(r.VTPMGuests)
	r.Checks = []Check{}
	r.VTPMGuests = []Guest{}
	return SummaryView{Report: &r, guests: n}
}

// Table is the host, its release and the counts, one a line.
func (v SummaryView) Table() output.Table {
	t := output.NewSummary("checks")
	add := t.Add
	add("host", v.Host)
	add("nova_release", v.NovaRelease)
	add("pass", v.Summary.Pass)
	add("warn", v.Summary.Warn)
	add("fail", v.Summary.Fail)
	add("skip", v.Summary.Skip)
	add("vtpm_guests", v.guests)
	if l := v.Layout; l != nil {
		add("layout", l.Name)
	}
	return t.Table
}
