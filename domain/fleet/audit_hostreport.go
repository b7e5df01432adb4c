package fleet

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// reportOf finds the host's `host check` report by hypervisor hostname
// first, then service host. The fleet audit's index (matchReports) leads
// a host's names to its own report or nowhere, never to another host's.
func reportOf(reports map[string]hostcheck.Report, h Host) (hostcheck.Report, bool) {
	if rep, ok := reports[h.Hypervisor]; ok {
		return rep, true
	}
	rep, ok := reports[h.Host]
	return rep, ok
}

// fromHostReport adds what only the host itself knows: how its
// configuration differs from Placement, its installed release, the
// findings that lose guests on a reboot or a stop, and its guests' TPM
// state and BitLocker risk.
func fromHostReport(r *HostReport, rel nova.Release, h Host, rep hostcheck.Report) {
	r.add(driftCheck(h, rep))
	if c, ok := releaseMismatch(rel, rep); ok {
		r.add(c)
	}
	for _, c := range rep.Checks {
		if carriedToFleet(c) {
			r.add(c)
		}
	}
	stateKept(r, rep.Facts.StateKept)
	bitLocker(r, rep.VTPMGuests, "not in the host's check report (created or moved there since it ran?)")
}

// carriedToFleet: the host-reboot trap, the wiped TPM and BitLocker
// recovery strand guests, so a fleet view without them would look clean.
func carriedToFleet(c Check) bool {
	switch c.ID {
	case "RESUME-ON-BOOT", "KEEP-TPM-STATE", "BITLOCKER-RISK":
		return c.Status != Pass
	}
	return false
}

// driftCheck compares Placement with what the host's own configuration
// makes Nova report (from `host check`).
func driftCheck(h Host, rep hostcheck.Report) Check {
	var missing, extra []string
	for _, t := range rep.Traits {
		if !contains(h.Traits, t) {
			missing = append(missing, t)
		}
	}
	for _, t := range h.Traits {
		if !contains(rep.Traits, t) {
			extra = append(extra, t)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		msg := "Placement matches the host's configuration"
		if rep.Failed() {
			return Check{ID: "CONFIG-DRIFT", Status: Fail, Message: msg + fmt.Sprintf(", but host check found %d failing check(s)", rep.Summary.Fail), Remedy: "see that host's report"}
		}
		return Check{ID: "CONFIG-DRIFT", Status: Pass, Message: msg}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "config says Nova reports "+strings.Join(missing, " ")+" but Placement lacks it")
	}
	remedy := "restart nova-compute after a config change; remove stale traits by hand"
	if len(extra) > 0 {
		parts = append(parts, "Placement has "+strings.Join(extra, " ")+" that the config does not give")
		for _, t := range extra {
			if strings.HasPrefix(t, "COMPUTE_SECURITY_TPM_SECRET_SECURITY_") {
				// Seen live on 2026.1: the driver only ever adds mode traits.
				parts = append(parts, "Nova never removes a secret security mode's trait when the mode leaves [libvirt] supported_tpm_secret_security, so guests of that mode still land here")
				remedy = "remove the stale trait by hand (openstack resource provider trait set --trait … without it, on the host's provider); a restart does not"
				break
			}
		}
	}
	return Check{ID: "CONFIG-DRIFT", Status: Fail, Message: strings.Join(parts, "; "), Remedy: remedy}
}

// releaseMismatch: a host whose installed Nova is not the release the
// cloud's API answers for is mid-upgrade, or its report is stale.
func releaseMismatch(rel nova.Release, rep hostcheck.Report) (Check, bool) {
	if rep.NovaRelease == nova.ReleaseUnknown || rel == nova.ReleaseUnknown || rep.NovaRelease == rel {
		return Check{}, false
	}
	msg := fmt.Sprintf("the host check report says Nova %s, the audit assumes %s for the cloud: rules (traits, modes) follow each compute's own release", rep.NovaRelease, rel)
	if rel.HostModeLiveMigration() && !rep.NovaRelease.HostModeLiveMigration() {
		// compute/api.py: the cell's oldest nova-compute gates host-mode
		// live migration (MIN_COMPUTE_VTPM_LIVE_MIGRATION, service version 72).
		msg += "; while it runs, Nova refuses every host-mode live migration in its cell: \"vTPM live migration is not supported by old nova-compute services. Upgrade your nova-compute services to Gazpacho (33.0.0) or later.\""
		if rel.RequiresOwnerNova() {
			msg += " (and a 2026.2 control plane supports no nova-compute older than 2026.1: it refuses to start)"
		}
	}
	return Check{ID: "NOVA-RELEASE", Status: Warn, Message: msg, Remedy: "finish the upgrade, or re-run host check on this host"}, true
}

// stateKept: whether a TPM survives a stop is the host's (its libvirt and
// installed Nova code), so every guest on it shares the host's answer.
func stateKept(r *HostReport, k *hostcheck.StateKept) {
	r.Facts.StateKept = k
	if k == nil {
		return
	}
	for i := range r.VTPMGuests {
		r.VTPMGuests[i].StateKept = k.Kept
	}
	for i := range r.AtRisk {
		r.AtRisk[i].StateKept = k.Kept
	}
}

// bitLocker gives each guest of the host the view its host check report
// has of it (matched by UUID: the domain's is the server's); a guest the
// report lacks is unknown, with why.
func bitLocker(r *HostReport, seen []hostcheck.Guest, why string) {
	byUUID := map[string]*hostcheck.GuestBitLocker{}
	for _, g := range seen {
		if g.BitLocker != nil {
			byUUID[g.UUID] = g.BitLocker
		}
	}
	for i := range r.VTPMGuests {
		r.VTPMGuests[i].BitLocker = byUUID[r.VTPMGuests[i].UUID]
	}
	for i := range r.AtRisk {
		g := &r.AtRisk[i]
		if b := byUUID[g.ServerID]; b != nil {
			g.BitLockerRisk, g.BitLockerReasons = b.Risk, b.Reasons
		} else {
			g.BitLockerRisk, g.BitLockerReasons = hostcheck.RiskUnknown, []string{why}
		}
	}
}

// noHostReport: where reports were given, a host without one is a gap in
// the audit, not a clean host.
func noHostReport(r *HostReport) {
	r.add(Check{ID: "CONFIG-DRIFT", Status: Warn, Message: "no host check report for this host", Remedy: "run host check on it and add its JSON report"})
	bitLocker(r, nil, "no host check report for this host")
}
