// Deprecated: the fleet audit before it moved to package fleet; see
// fleet_deprecated.go for why it stays and when it goes.
package hostcheck

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/nova"
)

// AuditFleet checks each host's Placement traits against what its Nova
// release requires and, where a `host check` report exists for the host,
// against what its configuration makes Nova report.
func AuditFleet(rel nova.Release, hosts []FleetHost, reports map[string]Report, guests []nova.VTPMGuest) ([]FleetReport, FleetSummary) {
	// Indexes into guests, not copies: at 50,000 guests a copy each is 8 MB.
	byHost := map[string][]int32{}
	for i := range guests {
		byHost[guests[i].Host] = append(byHost[guests[i].Host], int32(i))
	}
	var out []FleetReport
	sum := FleetSummary{Hosts: len(hosts)}
	for _, h := range hosts {
		// What the APIs say of the host: its Secure Boot trait, its vTPM guests.
		r := FleetReport{Report: Report{Host: h.Host, NovaRelease: rel.String(), Traits: h.Traits, VTPMGuests: []Guest{},
			Facts: HostInfo{HypervisorHostname: h.Hypervisor, SecureBoot: contains(h.Traits, "COMPUTE_SECURITY_UEFI_SECURE_BOOT")}}}
		if on := byHost[h.Host]; len(on) > 0 {
			r.VTPMGuests = make([]Guest, 0, len(on))
		}
		for _, i := range byHost[h.Host] {
			g := &guests[i]
			r.VTPMGuests = append(r.VTPMGuests, Guest{UUID: g.ServerID, Name: g.Name, Model: g.Model, Version: g.Version})
		}
		usable := h.State == "up" && h.Status == "enabled"
		if usable {
			sum.Usable++
			r.add(Check{ID: "SERVICE", Status: Pass, Message: "nova-compute is up and enabled"})
		} else {
			r.add(Check{ID: "SERVICE", Status: Warn, Message: fmt.Sprintf("nova-compute is %s and %s: it takes no new guests, and its vTPM guests cannot be evacuated", h.State, h.Status),
				Remedy: "bring the service back; vTPM guests on a dead host wait for that host"})
		}
		capab := CapabilityOf(rel, h.Traits)
		r.add(capabilityCheck(rel, h, capab))
		if c, ok := staleTraits(rel, h); ok {
			r.add(c)
		}
		if rel.RequiresOwnerNova() && !contains(h.Traits, "OWNER_NOVA") {
			r.add(Check{ID: "OWNER-NOVA", Status: Fail,
				Message: "no OWNER_NOVA trait: the 2026.2 scheduler requires it on every request once all nova-compute services are 2026.2, so this host takes no new guest, vTPM or not",
				Remedy:  "upgrade this host's nova-compute to 2026.2 (it reports the trait at startup)"})
		}
		if on := byHost[h.Host]; len(on) > 0 {
			r.add(evacuationRisk(rel, guests, on, &r))
			sum.AtRisk += len(on)
		}
		rep, ok := reports[h.Hypervisor]
		if !ok {
			rep, ok = reports[h.Host]
		}
		if ok {
			r.add(driftCheck(h, rep))
			if c, ok := releaseMismatch(rel, rep); ok {
				r.add(c)
			}
			for _, c := range rep.Checks {
				// the host-reboot trap and the wiped TPM, from the host's own report
				if (c.ID == "RESUME-ON-BOOT" || c.ID == "KEEP-TPM-STATE") && c.Status != Pass {
					r.add(c)
				}
			}
			r.Facts.StateKept = rep.Facts.StateKept
			if k := rep.Facts.StateKept; k != nil {
				for i := range r.VTPMGuests {
					r.VTPMGuests[i].StateKept = k.Kept
				}
				for i := range r.AtRisk {
					r.AtRisk[i].StateKept = k.Kept
				}
			}
		} else if len(reports) > 0 {
			r.add(Check{ID: "CONFIG-DRIFT", Status: Warn, Message: "no host check report for this host", Remedy: "run vtpmctl host check -f json on it"})
		}
		r.Finish()
		if usable {
			sum.TPM20 += b2i(capab.TPM20)
			sum.CRB += b2i(capab.CRB)
			sum.HostMode += b2i(capab.HostMode)
		}
		if r.Failed() {
			sum.Failing++
		}
		out = append(out, r)
	}
	return out, sum
}

// releaseMismatch: a host whose installed Nova is not the release the
// cloud's API answers for is mid-upgrade, or its report is stale.
func releaseMismatch(rel nova.Release, rep Report) (Check, bool) {
	if rep.NovaRelease == "" || rel == nova.ReleaseUnknown || rep.NovaRelease == rel.String() {
		return Check{}, false
	}
	msg := fmt.Sprintf("the host check report says Nova %s, the audit assumes %s for the cloud: rules (traits, modes) follow each compute's own release", rep.NovaRelease, rel)
	var hostRel nova.Release
	if hostRel.Set(rep.NovaRelease) == nil && rel.HostModeLiveMigration() && !hostRel.HostModeLiveMigration() {
		// compute/api.py: the cell's oldest nova-compute gates host-mode
		// live migration (MIN_COMPUTE_VTPM_LIVE_MIGRATION, service version 72).
		msg += "; while it runs, Nova refuses every host-mode live migration in its cell: \"vTPM live migration is not supported by old nova-compute services. Upgrade your nova-compute services to Gazpacho (33.0.0) or later.\""
		if rel.RequiresOwnerNova() {
			msg += " (and a 2026.2 control plane supports no nova-compute older than 2026.1: it refuses to start)"
		}
	}
	return Check{ID: "NOVA-RELEASE", Status: Warn, Message: msg, Remedy: "finish the upgrade, or re-run host check on this host"}, true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
