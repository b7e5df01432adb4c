package hostcheck

import (
	"time"

	"github.com/vtpmctl/vtpmctl/internal/metrics"
)

// Metric names are an interface (alert rules use them): docs/output.md's
// metrics table (TestMetricsDocumented).
const (
	mCheck    = "vtpmctl_host_check"
	mChecks   = "vtpmctl_host_checks"
	mTrait    = "vtpmctl_host_trait"
	mGuests   = "vtpmctl_host_vtpm_guests"
	mInfo     = "vtpmctl_host_info"
	mLastRun  = "vtpmctl_last_run_timestamp_seconds"
	mRisk     = "vtpmctl_host_bitlocker_risk_guests"
	helpRisk  = "vTPM guests of the host by BitLocker-recovery risk (high, medium, unknown, low; docs/bitlocker.md)"
	helpCheck = "1 for each check of a host, labelled with its status (pass, warn, fail, skip)"
)

// The 2023 Secure Boot certificates' counts (certremedy.go).
const (
	mCerts     = "vtpmctl_host_secure_boot_certs_guests"
	helpCerts  = "vTPM guests of the host by the Microsoft Secure Boot certificates their NVRAM enrols (2011, partial, unreadable, unknown, 2023, other, no-keys, no-nvram; docs/secure-boot-2023.md)"
	mRemedy    = "vtpmctl_host_secure_boot_remedy_guests"
	helpRemedy = "vTPM guests of the host by what brings their NVRAM to the 2023 certificates (package-update, update-nvram, unknown, none; docs/secure-boot-2023.md)"
)

// Now is the clock of the run's timestamp (tests fix it).
var Now = time.Now

// Gauges is `host check -f prometheus`: only what a host check finds
// (the fleet's gauges, such as the guests at risk, are `hosts audit`'s).
func (r *Report) Gauges() *metrics.Set {
	s := metrics.New()
	r.AddGauges(s)
	r.AddRiskGauges(s)
	r.AddSecureBootGauges(s)
	for _, t := range r.Traits {
		s.Add(mTrait, "1 for each Placement trait of the host (host check: what Nova reports for it; hosts audit: what Placement holds)", 1, "host", r.Host, "trait", t)
	}
	layout := ""
	if r.Layout != nil {
		layout = r.Layout.Name
	}
	rel, _ := r.NovaRelease.MarshalText() // the name the JSON has: "" unknown
	s.Add(mInfo, "the host's Nova release and deployment layout", 1, "host", r.Host, "nova_release", string(rel), "layout", layout)
	s.Add(mLastRun, "when vtpmctl last ran this audit (the textfile's freshness)", float64(Now().Unix()), "command", "host check")
	return s
}

// AddGauges adds the host's checks (each, and counted by status) and its
// vTPM guests: the series a host check and the fleet audit share.
func (r *Report) AddGauges(s *metrics.Set) {
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
	s.Add(mGuests, "vTPM guests defined on the host", float64(len(r.VTPMGuests)), "host", r.Host)
}

// AddRiskGauges counts the host's guests by BitLocker-recovery risk, every
// level (0 included, so an alert sees it fall); never a guest's name. A
// guest without a view (a fleet guest its host's report lacks) counts as
// unknown.
func (r *Report) AddRiskGauges(s *metrics.Set) {
	n := map[Risk]int{}
	for _, g := range r.VTPMGuests {
		if g.BitLocker == nil {
			n[RiskUnknown]++
		} else {
			n[g.BitLocker.Risk]++
		}
	}
	for _, l := range RiskLevels {
		s.Add(mRisk, helpRisk, float64(n[l]), "host", r.Host, "level", string(l))
	}
}

// AddSecureBootGauges counts the host's guests by the certificates their
// NVRAM enrols and by remedy, every class and remedy (0 included); never
// a guest's name. A guest without a view counts as unknown in both.
func (r *Report) AddSecureBootGauges(s *metrics.Set) {
	c := CountSecureBoot(r.VTPMGuests)
	for _, k := range CertsClasses {
		s.Add(mCerts, helpCerts, float64(c.ByCerts[k]), "host", r.Host, "certs", string(k))
	}
	for _, k := range CertRemedies {
		s.Add(mRemedy, helpRemedy, float64(c.ByRemedy[k]), "host", r.Host, "remedy", string(k))
	}
}
