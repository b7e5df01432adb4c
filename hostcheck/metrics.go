package hostcheck

import (
	"time"

	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// Metric names are an interface (alert rules use them): README "Metrics".
const (
	mCheck    = "vtpmctl_host_check"
	mChecks   = "vtpmctl_host_checks"
	mTrait    = "vtpmctl_host_trait"
	mGuests   = "vtpmctl_host_vtpm_guests"
	mAtRisk   = "vtpmctl_host_vtpm_guests_at_risk"
	mInfo     = "vtpmctl_host_info"
	mLastRun  = "vtpmctl_last_run_timestamp_seconds"
	mCapable  = "vtpmctl_fleet_hosts_capable"
	mHosts    = "vtpmctl_fleet_hosts"
	mHostUp   = "vtpmctl_fleet_host_usable"
	helpCheck = "1 for each check of a host, labelled with its status (pass, warn, fail, skip)"
)

// Now is the clock of the run's timestamp (tests fix it).
var Now = time.Now

// Gauges is `host check -f prometheus`.
func (r *Report) Gauges() *metrics.Set {
	s := metrics.New()
	r.addGauges(s, true)
	s.Add(mLastRun, "when vtpmctl last ran this audit (the textfile's freshness)", float64(Now().Unix()), "command", "host check")
	return s
}

// addGauges: the host's checks, its traits (what Nova reports for it on
// this release, or Placement's in a fleet audit), its vTPM guests.
func (r *Report) addGauges(s *metrics.Set, own bool) {
	type key struct{ check, status string }
	seen := map[key]float64{}
	var order []key
	for _, c := range r.Checks {
		k := key{c.ID, string(c.Status)}
		if seen[k] == 0 {
			order = append(order, k)
		}
		seen[k]++
	}
	for _, k := range order {
		s.Add(mCheck, helpCheck, seen[k], "host", r.Host, "check", k.check, "status", k.status)
	}
	for st, n := range map[Status]int{Pass: r.Summary.Pass, Warn: r.Summary.Warn, Fail: r.Summary.Fail, Skip: r.Summary.Skip} {
		s.Add(mChecks, "checks of a host by status", float64(n), "host", r.Host, "status", string(st))
	}
	if own {
		for _, t := range r.Traits {
			s.Add(mTrait, "1 for each Placement trait of the host (host check: what Nova reports for it; hosts audit: what Placement holds)", 1, "host", r.Host, "trait", t)
		}
		layout := ""
		if r.Layout != nil {
			layout = r.Layout.Name
		}
		s.Add(mInfo, "the host's Nova release and deployment layout", 1, "host", r.Host, "nova_release", r.NovaRelease, "layout", layout)
	}
	s.Add(mGuests, "vTPM guests defined on the host", float64(len(r.VTPMGuests)), "host", r.Host)
	s.Add(mAtRisk, "vTPM guests stranded if the host dies (Nova refuses to evacuate them)", float64(len(r.AtRisk)), "host", r.Host)
}

// Gauges is `hosts audit -f prometheus`: each host's fleet checks and
// Placement traits, the hosts by what they can take, the guests at risk.
func (f *Fleet) Gauges() *metrics.Set {
	s := metrics.New()
	seen := map[string]bool{} // a host with several hypervisors (ironic) is one host
	for i, h := range f.Hosts {
		if seen[h.Host] {
			continue
		}
		seen[h.Host] = true
		if i < len(f.Reports) {
			f.Reports[i].addGauges(s, false)
		}
		for _, t := range h.Traits {
			s.Add(mTrait, "1 for each Placement trait of the host (host check: what Nova reports for it; hosts audit: what Placement holds)", 1, "host", h.Host, "trait", t)
		}
		usable := 0.0
		if h.State == "up" && h.Status == "enabled" {
			usable = 1
		}
		s.Add(mHostUp, "1 when the host's nova-compute is up and enabled", usable, "host", h.Host)
	}
	s.Add(mHosts, "compute hosts in the hypervisor list", float64(f.Summary.Hosts))
	for c, n := range map[string]int{"tpm_2_0": f.Summary.TPM20, "crb": f.Summary.CRB, "host_mode": f.Summary.HostMode} {
		s.Add(mCapable, "usable hosts whose Placement traits let the scheduler place this kind of vTPM guest", float64(n), "capability", c)
	}
	s.Add(mLastRun, "when vtpmctl last ran this audit (the textfile's freshness)", float64(Now().Unix()), "command", "hosts audit")
	return s
}
