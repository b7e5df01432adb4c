package fleet

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// capabilityCheck: what the release's scheduler can place here or, when
// no vTPM guest at all, the required traits that keep them away.
func capabilityCheck(rel nova.Release, h Host, c Capability) Check {
	if c.TPM20 || c.CRB {
		return Check{ID: "TRAITS", Status: Pass, Message: "the " + rel.String() + " scheduler can place here: " + strings.Join(placeable(rel, h, c), ", ")}
	}
	if modes := modesThatFit(rel, h.Traits); len(modes) > 0 {
		return Check{ID: "TRAITS", Status: Pass, Message: "the " + rel.String() + " scheduler can place here only guests whose flavor asks for hw:tpm_secret_security=" +
			strings.Join(modes, " or ") + " (" + strings.Join(placeable(rel, h, c), ", ") + "); a flavor that names no mode asks for user mode, which this host does not offer"}
	}
	anyTPM := false
	for _, t := range h.Traits {
		anyTPM = anyTPM || strings.HasPrefix(t, "COMPUTE_SECURITY_TPM_")
	}
	if !anyTPM {
		return Check{ID: "TRAITS", Status: Warn, Message: "not a vTPM host: no TPM trait in Placement",
			Remedy: "if it should take vTPM guests, run host check on it"}
	}
	need := nova.RequiredTraits(rel, "2.0", "tpm-tis", map[bool]nova.SecretMode{true: nova.SecretUser}[rel.HasSecretSecurity()])
	var missing []string
	for _, t := range need {
		if !contains(h.Traits, t) {
			missing = append(missing, t)
		}
	}
	return Check{ID: "TRAITS", Status: Fail, Message: fmt.Sprintf("no vTPM guest can be scheduled here on %s: missing %s", rel, strings.Join(missing, " ")),
		Remedy: "run host check on it; enable swtpm, or upgrade nova-compute to the scheduler's release"}
}

// modesThatFit: [libvirt] supported_tpm_secret_security may offer host or
// deployment mode without user; a guest that asks for one of them still
// lands here, though the default (user) guest the capability counts does not.
func modesThatFit(rel nova.Release, traits []string) []string {
	if !rel.HasSecretSecurity() {
		return nil
	}
	var fit []string
	for _, m := range nova.SecretModes {
		if hasAll(traits, nova.RequiredTraits(rel, "2.0", "tpm-tis", m)) || hasAll(traits, nova.RequiredTraits(rel, "2.0", "tpm-crb", m)) {
			fit = append(fit, string(m))
		}
	}
	return fit
}

// placeable names the guests the scheduler can place here, TPM 1.2 and
// the secret security modes included, which the capability leaves out.
func placeable(rel nova.Release, h Host, c Capability) []string {
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
		for _, m := range nova.SecretModes {
			if contains(h.Traits, m.Trait()) {
				modes = append(modes, string(m))
			}
		}
		if len(modes) > 0 {
			can = append(can, "secret security "+strings.Join(modes, "/"))
		}
	}
	return can
}

// staleTraits: Nova removes stale version/model traits but only ever adds
// SECRET_SECURITY_* ones (driver.py update_provider_tree).
func staleTraits(rel nova.Release, h Host) (Check, bool) {
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

// ownerNovaCheck: unlike the TPM traits, a missing OWNER_NOVA shuts the
// host to every guest, vTPM or not.
func ownerNovaCheck(rel nova.Release, h Host) (Check, bool) {
	if !rel.RequiresOwnerNova() || contains(h.Traits, "OWNER_NOVA") {
		return Check{}, false
	}
	return Check{ID: "OWNER-NOVA", Status: Fail,
		Message: "no OWNER_NOVA trait: the 2026.2 scheduler requires it on every request once all nova-compute services are 2026.2, so this host takes no new guest, vTPM or not",
		Remedy:  "upgrade this host's nova-compute to 2026.2 (it reports the trait at startup)"}, true
}
