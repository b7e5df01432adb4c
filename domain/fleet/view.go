package fleet

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// RowStatus is the host's row status: its worst finding.
func (r HostReport) RowStatus() result.Status {
	ss := make([]result.Status, len(r.Checks))
	for i, c := range r.Checks {
		ss[i] = c.Status
	}
	return result.Worst(ss...)
}

// Short is the host's findings in short, about as wide as one check ID
// (the row's result says their status): the first check of the row's
// status, then how many more did not pass ("SERVICE +1"); nothing when
// every check passed.
func (r HostReport) Short() string {
	worst := r.RowStatus()
	first, more := "", 0
	for _, c := range r.Checks {
		switch {
		case c.Status == result.Pass:
		case first == "" && c.Status == worst:
			first = c.ID
		default:
			more++
		}
	}
	switch {
	case first == "":
		return ""
	case more > 0:
		return fmt.Sprintf("%s +%d", first, more)
	}
	return first
}

// Only is the audit with only the hosts whose status f keeps; the
// summary stays the whole run's.
func (f Result) Only(keep result.Filter) Result {
	if len(keep) == 0 {
		return f
	}
	hosts := make([]HostReport, 0, len(f.Hosts))
	for _, h := range f.Hosts {
		if keep.Keeps(h.RowStatus()) {
			hosts = append(hosts, h)
		}
	}
	f.Hosts = hosts
	return f
}

// SummaryView is the audit's summary alone. Its JSON is the audit's
// document, same schema, with hosts empty; its table is the summary's
// counts.
type SummaryView struct{ *Result }

// SummaryView leaves out the list; f is not changed.
func (f Result) SummaryView() SummaryView {
	f.Hosts = []HostReport{}
	return SummaryView{&f}
}

// Table is the summary's counts, one a line.
func (v SummaryView) Table() output.Table {
	s := v.Summary
	t := output.NewSummary("hosts")
	add := t.Add
	add("compute_hosts", s.Hosts)
	add("hosts_up_and_enabled", s.Usable)
	add("can_take_tpm_2_0", s.TPM20)
	add("can_take_crb", s.CRB)
	add("can_take_host_mode", s.HostMode)
	add("hosts_failing", s.Failing)
	add("vtpm_guests_at_risk", s.AtRisk)
	if s.Drain != nil {
		add("drain_live_migrate", s.Drain[DrainLive])
		add("drain_cold_migrate", s.Drain[DrainCold])
		add("drain_stays", s.Drain[DrainStays])
	}
	if s.BitLocker != nil {
		for _, l := range hostcheck.RiskLevels {
			add("bitlocker_risk_"+string(l), s.BitLocker[l])
		}
	}
	if c := s.SecureBoot; c != nil {
		for _, k := range hostcheck.CertsClasses {
			add("secure_boot_certs_"+summaryKey(string(k)), c.ByCerts[k])
		}
		for _, k := range hostcheck.CertRemedies {
			add("secure_boot_remedy_"+summaryKey(string(k)), c.ByRemedy[k])
		}
	}
	add("nova_release", nova.Label(v.Release, v.Candidates))
	return t.Table
}

// RowStatus is the host's row status in the upgrade check: warn when it
// stops receiving vTPM guests, pass otherwise. (Stranded guests are the
// check's verdict, not rows: a view keeps them all.)
func (h UpgradeHost) RowStatus() result.Status {
	if h.Loses {
		return result.Warn
	}
	return result.Pass
}

// Only is the upgrade check with only the hosts whose status f keeps;
// the stranded guests, the advice and the known bugs stay.
func (u UpgradeResult) Only(f result.Filter) UpgradeResult {
	if len(f) == 0 {
		return u
	}
	kept := make([]UpgradeHost, 0, len(u.Hosts))
	for _, h := range u.Hosts {
		if f.Keeps(h.RowStatus()) {
			kept = append(kept, h)
		}
	}
	u.Hosts = kept
	return u
}

// UpgradeSummaryView is the upgrade check's summary alone: its document,
// same schema and shape, with hosts, stranded guests and upgrade_first
// empty (summary, advice and known bugs stay).
type UpgradeSummaryView struct{ *UpgradeResult }

// SummaryView leaves out the lists; u is not changed.
func (u UpgradeResult) SummaryView() UpgradeSummaryView {
	u.Hosts, u.Stranded, u.UpgradeNow = []UpgradeHost{}, []StrandedGuest{}, []string{}
	return UpgradeSummaryView{&u}
}

// Table is the counts, one a line.
func (v UpgradeSummaryView) Table() output.Table {
	s := v.Summary
	t := output.NewSummary("hosts")
	add := t.Add
	add("from", v.From)
	add("to", v.To)
	add("hosts_up_and_enabled", s.Hosts)
	add("hosts_losing_vtpm", s.Losing)
	add("vtpm_guests", s.VTPMGuests)
	add("stranded_guests", s.Stranded)
	add("known_bugs", s.KnownBugs)
	add("known_bugs_fixed_by_upgrade", s.Fixed)
	return t.Table
}
