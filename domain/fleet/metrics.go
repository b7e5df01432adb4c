package fleet

import (
	"time"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// Metric names are an interface (alert rules use them): docs/output.md's
// metrics table (TestMetricsDocumented).
const (
	mTrait   = "vtpmctl_host_trait"
	mAtRisk  = "vtpmctl_host_vtpm_guests_at_risk"
	mLastRun = "vtpmctl_last_run_timestamp_seconds"
	mCapable = "vtpmctl_fleet_hosts_capable"
	mHosts   = "vtpmctl_fleet_hosts"
	mHostUp  = "vtpmctl_fleet_host_usable"
	mRisk    = "vtpmctl_fleet_bitlocker_risk_guests"
	mCerts   = "vtpmctl_fleet_secure_boot_certs_guests"
	mRemedy  = "vtpmctl_fleet_secure_boot_remedy_guests"
)

// Now is the clock of the run's timestamp (tests fix it).
var Now = time.Now

// Gauges is `hosts audit -f prometheus`: each host's fleet checks and
// Placement traits, the hosts by what they can take, the guests at risk.
func (f *Result) Gauges() *metrics.Set {
	s := metrics.New()
	seen := map[string]bool{} // a host with several hypervisors (ironic) is one host
	for i := range f.Hosts {
		h := &f.Hosts[i]
		if seen[h.Host] {
			continue
		}
		seen[h.Host] = true
		h.AddGauges(s)
		s.Add(mAtRisk, "vTPM guests stranded if the host dies (Nova refuses to evacuate them)", float64(len(h.AtRisk)), "host", h.Host)
		if f.Summary.BitLocker != nil { // only host check reports know it
			h.AddRiskGauges(s)
			h.AddSecureBootGauges(s)
		}
		for _, t := range h.Traits {
			s.Add(mTrait, "1 for each Placement trait of the host (host check: what Nova reports for it; hosts audit: what Placement holds)", 1, "host", h.Host, "trait", t)
		}
		usable := 0.0
		if h.Usable() {
			usable = 1
		}
		s.Add(mHostUp, "1 when the host's nova-compute is up and enabled", usable, "host", h.Host)
	}
	s.Add(mHosts, "compute hosts in the hypervisor list", float64(f.Summary.Hosts))
	for c, n := range map[string]int{"tpm_2_0": f.Summary.TPM20, "crb": f.Summary.CRB, "host_mode": f.Summary.HostMode} {
		s.Add(mCapable, "usable hosts whose Placement traits let the scheduler place this kind of vTPM guest", float64(n), "capability", c)
	}
	if f.Summary.BitLocker != nil {
		for _, l := range hostcheck.RiskLevels {
			s.Add(mRisk, "vTPM guests of the fleet by BitLocker-recovery risk, from the hosts' check reports (a guest without one is unknown)", float64(f.Summary.BitLocker[l]), "level", string(l))
		}
	}
	if c := f.Summary.SecureBoot; c != nil {
		for _, k := range hostcheck.CertsClasses {
			s.Add(mCerts, "vTPM guests of the fleet by the Microsoft Secure Boot certificates their NVRAM enrols, from the hosts' check reports (a guest without one is unknown)", float64(c.ByCerts[k]), "certs", string(k))
		}
		for _, k := range hostcheck.CertRemedies {
			s.Add(mRemedy, "vTPM guests of the fleet by what brings their NVRAM to the 2023 certificates (package-update, update-nvram, unknown, none), from the hosts' check reports", float64(c.ByRemedy[k]), "remedy", string(k))
		}
	}
	s.Add(mLastRun, "when vtpmctl last ran this audit (the textfile's freshness)", float64(Now().Unix()), "command", "hosts audit")
	return s
}
