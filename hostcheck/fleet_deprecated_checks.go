// Deprecated: the fleet audit before it moved to package fleet; see
// fleet_deprecated.go for why it stays and when it goes.
package hostcheck

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/nova"
)

func capabilityCheck(rel nova.Release, h FleetHost, c Capability) Check {
	if c.TPM20 || c.CRB {
		var can []string
		if c.TPM20 {
			can = append(can, "TPM 2.0 (TIS)")
		}
		if c.CRB {
			can = append(can, "TPM 2.0 (CRB)")
		}
		if c.HostMode {
			can = append(can, "host mode")
		}
		if contains(h.Traits, "COMPUTE_SECURITY_TPM_1_2") {
			can = append(can, "TPM 1.2")
		}
		if rel.HasSecretSecurity() {
			var modes []string
			for _, m := range []string{"user", "host", "deployment"} {
				if contains(h.Traits, "COMPUTE_SECURITY_TPM_SECRET_SECURITY_"+strings.ToUpper(m)) {
					modes = append(modes, m)
				}
			}
			if len(modes) > 0 {
				can = append(can, "secret security "+strings.Join(modes, "/"))
			}
		}
		return Check{ID: "TRAITS", Status: Pass, Message: "the " + rel.String() + " scheduler can place here: " + strings.Join(can, ", ")}
	}
	anyTPM := false
	for _, t := range h.Traits {
		anyTPM = anyTPM || strings.HasPrefix(t, "COMPUTE_SECURITY_TPM_")
	}
	if !anyTPM {
		return Check{ID: "TRAITS", Status: Warn, Message: "not a vTPM host: no TPM trait in Placement",
			Remedy: "if it should take vTPM guests, run vtpmctl host check on it"}
	}
	need := nova.RequiredTraits(rel, "2.0", "tpm-tis", map[bool]nova.SecretMode{true: nova.SecretUser}[rel.HasSecretSecurity()])
	var missing []string
	for _, t := range need {
		if !contains(h.Traits, t) {
			missing = append(missing, t)
		}
	}
	return Check{ID: "TRAITS", Status: Fail, Message: fmt.Sprintf("no vTPM guest can be scheduled here on %s: missing %s", rel, strings.Join(missing, " ")),
		Remedy: "run vtpmctl host check on it; enable swtpm, or upgrade nova-compute to the scheduler's release"}
}

// staleTraits: Nova removes stale version/model traits but only ever adds
// SECRET_SECURITY_* ones (driver.py update_provider_tree).
func staleTraits(rel nova.Release, h FleetHost) (Check, bool) {
	hasVersion := contains(h.Traits, "COMPUTE_SECURITY_TPM_2_0") || contains(h.Traits, "COMPUTE_SECURITY_TPM_1_2")
	var sec []string
	for _, t := range h.Traits {
		if strings.HasPrefix(t, "COMPUTE_SECURITY_TPM_SECRET_SECURITY_") {
			sec = append(sec, t)
		}
	}
	switch {
	case len(sec) > 0 && !hasVersion:
		return Check{ID: "STALE-TRAITS", Status: Fail, Message: "secret security traits without any TPM version trait: swtpm was turned off and Nova never removes " + strings.Join(sec, " "),
			Remedy: "openstack resource provider trait set without them (or re-enable swtpm)"}, true
	case len(sec) > 0 && !rel.HasSecretSecurity():
		return Check{ID: "STALE-TRAITS", Status: Warn, Message: strings.Join(sec, " ") + " on a " + rel.String() + " cloud, which has no secret security modes"}, true
	case rel >= nova.Dalmatian && hasVersion && !contains(h.Traits, "COMPUTE_SECURITY_TPM_TIS") && !contains(h.Traits, "COMPUTE_SECURITY_TPM_CRB"):
		return Check{ID: "STALE-TRAITS", Status: Fail, Message: "TPM version traits without a model trait: this nova-compute is older than 2024.2 (or its traits are stale); the " + rel.String() + " scheduler will not place vTPM guests here",
			Remedy: "upgrade nova-compute on this host"}, true
	}
	return Check{}, false
}

// driftCheck compares Placement with what the host's own configuration
// makes Nova report (from `host check`).
func driftCheck(h FleetHost, rep Report) Check {
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

// evacuationRisk: Nova refuses evacuate for every vTPM guest, so a dead
// host strands all of its vTPM guests until the host itself comes back.
func evacuationRisk(rel nova.Release, guests []nova.VTPMGuest, on []int32, r *FleetReport) Check {
	modes := map[nova.SecretMode]int{}
	r.AtRisk = make([]RiskGuest, 0, len(on))
	for _, i := range on {
		g := &guests[i]
		modes[g.Mode]++
		r.AtRisk = append(r.AtRisk, RiskGuest{ServerID: g.ServerID, Name: g.Name, Owner: g.UserID, Project: g.ProjectID, Mode: g.Mode})
	}
	var parts []string
	for _, m := range nova.SecretModes {
		if modes[m] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s mode", modes[m], m))
		}
	}
	msg := fmt.Sprintf("%d vTPM guest(s) here (%s) cannot be evacuated: if this host dies they wait for it", len(on), strings.Join(parts, ", "))
	remedy := "keep this host's vTPM state directory in host backups and a repair path for the host"
	if rel.HostModeLiveMigration() && modes["host"] < len(on) {
		remedy += "; host-mode guests can at least be live-migrated away before maintenance (resize to hw:tpm_secret_security=host)"
	}
	return Check{ID: "EVACUATION-RISK", Status: Warn, Message: msg, Remedy: remedy}
}
