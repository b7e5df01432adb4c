package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Schema names the JSON of `hosts audit`. Version 2: one object per host
// (version 1 split each host across "hosts" and "reports"), and the
// summary's counts named for what they count.
const Schema = "vtpmctl.hosts-audit/2"

// HostsReportSchema names the JSON of `hosts report` ({"schema", "hosts":
// [rows]}, one row per host check report).
const HostsReportSchema = "vtpmctl.hosts-report/1"

// Result is `hosts audit`: every host, one object each (its service,
// its Placement traits, its findings), and the summary.
type Result struct {
	Schema string `json:"schema"`
	nova.ReleaseContext
	Summary Summary      `json:"summary"`
	Hosts   []HostReport `json:"hosts"`
	// Resolved is how the release was settled: the command prints its
	// warning (a service knows no terminal).
	Resolved nova.ResolvedRelease `json:"-"`
	// DrainHint is how the caller's users ask for one host's drain view,
	// in their words (the CLI: its command line); the table's drain
	// footer points to it, and leaves the pointer out when it is empty.
	DrainHint string `json:"-"`
}

// HostReport is the fleet's view of one host, one object: the findings
// in the shape of a host check report (host, traits: Placement's), the
// service as the hypervisor list shows it, and what only the fleet knows.
type HostReport struct {
	hostcheck.Report
	// Result is the host's verdict (its worst check), the table's first
	// column.
	Result           result.Status `json:"result"`
	Hypervisor       string        `json:"hypervisor"`        // hypervisor_hostname = resource provider name
	ResourceProvider string        `json:"resource_provider"` // its UUID
	ServiceState     string        `json:"service_state"`     // nova-compute: up, down
	ServiceStatus    string        `json:"service_status"`    // nova-compute: enabled, disabled
	// AtRisk: the vTPM guests this host would strand if it died, since
	// Nova refuses to evacuate them.
	AtRisk []RiskGuest `json:"at_risk_guests,omitempty"`
	// SecureBoot: its vTPM guests by the 2023 certificates their NVRAM
	// enrols and by remedy, from its check report (a guest the report
	// lacks is unknown); absent when the audit was given no reports.
	SecureBoot *hostcheck.SecureBootCounts `json:"secure_boot_guests,omitempty"`
}

func (r *HostReport) add(c hostcheck.Check) { r.Checks = append(r.Checks, c) }

// RiskGuest is a vTPM guest on a host, as the fleet audit sees it.
type RiskGuest struct {
	ServerID string          `json:"server_id"`
	Name     string          `json:"name"`
	Owner    string          `json:"owner"`
	Project  string          `json:"project"`
	Mode     nova.SecretMode `json:"mode"`
	// Evidence is what decided the vTPM: the inventory's (flavor, image,
	// instance, volume), or host where the host's check report shows the
	// vTPM domain of a server the APIs did not decide as a guest.
	Evidence nova.Evidence `json:"evidence,omitempty"`
	// Undecided or Unconfirmed, for a guest its host's report promoted:
	// why the APIs did not decide it a guest (one of the two is set).
	Undecided   nova.Undecided   `json:"undecided,omitempty"`
	Unconfirmed nova.Unconfirmed `json:"unconfirmed,omitempty"`
	// StateKept: whether its TPM survives a stop, from the host's report.
	StateKept hostcheck.TriState `json:"vtpm_state_kept,omitempty"`
	// BitLockerRisk and its reasons, from the host's check report
	// (hostcheck.GuestBitLocker); unknown when it has none for the guest.
	BitLockerRisk    hostcheck.Risk `json:"bitlocker_risk,omitempty"`
	BitLockerReasons []string       `json:"bitlocker_reasons,omitempty"`
	// Drain: how it leaves this host (live-migrate, cold-migrate, stays),
	// and why (DecideDrain).
	Drain       DrainAction `json:"drain,omitempty"`
	DrainReason string      `json:"drain_reason,omitempty"`
}

// NewResult assembles the audit's result.
func NewResult(rel nova.Release, hosts []HostReport, sum Summary) *Result {
	hosts = slices.Clone(hosts) // the caller's list keeps no verdict
	for i := range hosts {
		if hosts[i].Result = hosts[i].RowStatus(); hosts[i].Result == "" {
			hosts[i].Result = result.Pass // a host without a report has no finding
		}
	}
	return &Result{Schema: Schema, ReleaseContext: nova.ReleaseContext{Release: rel}, Summary: sum, Hosts: hosts}
}

// Usable: nova-compute is up and enabled, so the scheduler places guests here.
func (r *HostReport) Usable() bool { return r.ServiceState == "up" && r.ServiceStatus == "enabled" }

// Suites are the hosts' findings as JUnit suites: one per host.
func (f *Result) Suites() []result.Suite {
	reps := make([]hostcheck.Report, len(f.Hosts))
	for i := range f.Hosts {
		reps[i] = f.Hosts[i].Report
	}
	return hostcheck.Suites(reps)
}

// Table is one row per host, worst result first. By default one line a
// host at 100 columns: its result, state, capabilities and its checks in
// short; --long (or -c) adds the hypervisor, its traits and the
// findings' words (each a line). value and csv show the same columns.
func (f *Result) Table() output.Table {
	t := output.Table{Key: "hosts", Verdict: "result",
		Columns: []string{"result", "host", "hypervisor", "state", "status", "tpm_2_0", "crb", "host_mode", "traits", "checks", "findings"},
		Default: []string{"result", "host", "state", "status", "tpm_2_0", "crb", "host_mode", "checks"},
		Wrap:    []string{"checks", "findings"}}
	for i := range f.Hosts {
		h := &f.Hosts[i]
		var findings []string
		for _, c := range h.Checks {
			if c.Status != hostcheck.Pass {
				findings = append(findings, fmt.Sprintf("%s %s: %s", c.Status, c.ID, c.Message))
			}
		}
		verdict := h.Result
		if verdict == "" {
			verdict = result.Pass
		}
		capab := CapabilityOf(f.Release, h.Traits)
		t.Rows = append(t.Rows, output.Record{{Name: "result", Value: verdict}, {Name: "host", Value: h.Host}, {Name: "hypervisor", Value: h.Hypervisor},
			{Name: "state", Value: h.ServiceState}, {Name: "status", Value: h.ServiceStatus}, {Name: "tpm_2_0", Value: capab.TPM20}, {Name: "crb", Value: capab.CRB},
			{Name: "host_mode", Value: capab.HostMode}, {Name: "traits", Value: h.Traits}, {Name: "checks", Value: h.Short()}, {Name: "findings", Value: findings}})
	}
	s := f.Summary
	t.Footer = []string{fmt.Sprintf("%d host(s), %d up and enabled; can take TPM 2.0: %d, CRB: %d, host mode: %d; vTPM guests that cannot be evacuated: %d; failing: %d (scheduler: Nova %s)",
		s.Hosts, s.Usable, s.TPM20, s.CRB, s.HostMode, s.AtRisk, s.Failing, nova.Label(f.Release, f.Candidates))}
	if s.AtRisk > 0 && s.Drain != nil {
		line := fmt.Sprintf("draining their hosts, vTPM guests would: live-migrate %d, cold-migrate %d, stay %d", s.Drain[DrainLive], s.Drain[DrainCold], s.Drain[DrainStays])
		if f.DrainHint != "" {
			line += " (" + f.DrainHint + ": each guest and why)"
		}
		t.Footer = append(t.Footer, line)
	}
	t.Footer = append(t.Footer, f.evidenceLines()...)
	if s.BitLocker != nil {
		var parts []string
		for _, l := range hostcheck.RiskLevels {
			parts = append(parts, fmt.Sprintf("%d %s", s.BitLocker[l], l))
		}
		t.Footer = append(t.Footer, "vTPM guests by BitLocker-recovery risk (from the host check reports): "+strings.Join(parts, ", "))
	}
	if c := s.SecureBoot; c != nil {
		t.Footer = append(t.Footer, "vTPM guests by 2023 Secure Boot certificates: "+certsParts(c)+"; to get them: "+remedyParts(c))
	}
	return t
}
