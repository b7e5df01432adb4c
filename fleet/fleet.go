package fleet

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/hostcheck"
	"github.com/vtpmctl/vtpmctl/nova"
)

// Capability says which guests the scheduler of a release can place on a
// host with these traits.
type Capability struct {
	TPM20    bool `json:"tpm_2_0"`   // a default 2.0 (TIS) guest
	CRB      bool `json:"crb"`       // a 2.0 CRB guest
	HostMode bool `json:"host_mode"` // a 2.0 host-mode guest (2026.1+)
}

// CapabilityOf applies the release's required traits to a host's traits.
func CapabilityOf(rel nova.Release, traits []string) Capability {
	can := func(model string, mode nova.SecretMode) bool {
		for _, t := range nova.RequiredTraits(rel, "2.0", model, mode) {
			if !contains(traits, t) {
				return false
			}
		}
		return true
	}
	var mode nova.SecretMode
	if rel.HasSecretSecurity() {
		mode = nova.SecretUser
	}
	c := Capability{TPM20: can("tpm-tis", mode), CRB: can("tpm-crb", mode)}
	if rel.HasSecretSecurity() {
		c.HostMode = can("tpm-tis", nova.SecretHost) || can("tpm-crb", nova.SecretHost)
	}
	return c
}

// Summary counts the hosts that are up, enabled and able.
type Summary struct {
	Hosts    int `json:"hosts"`
	Usable   int `json:"up_and_enabled"`
	TPM20    int `json:"can_take_tpm_2_0"`
	CRB      int `json:"can_take_crb"`
	HostMode int `json:"can_take_host_mode"`
	Failing  int `json:"hosts_failing"`
	AtRisk   int `json:"vtpm_guests_at_risk"`
	// BitLocker: the vTPM guests by BitLocker-recovery risk, from the
	// hosts' check reports (a guest without one is unknown); absent when
	// no report was given.
	BitLocker map[hostcheck.Risk]int `json:"bitlocker_risk_guests,omitempty"`
	// Drain: the vTPM guests by how they would leave their host.
	Drain map[DrainAction]int `json:"drain,omitempty"`
}

// AuditHosts checks each host's Placement traits against what its Nova
// release requires and, where a `host check` report exists for the host,
// against what its configuration makes Nova report.
func AuditHosts(rel nova.Release, hosts []Host, reports map[string]hostcheck.Report, guests []nova.VTPMGuest) ([]HostReport, Summary) {
	byHost := guestsByHost(guests)
	var out []HostReport
	sum := Summary{Hosts: len(hosts)}
	if len(reports) > 0 {
		// Only with reports: a count without any would claim zero high risk.
		sum.BitLocker = map[hostcheck.Risk]int{}
	}
	for _, h := range hosts {
		out = append(out, auditHost(rel, h, reports, guests, byHost[h.Host], &sum))
	}
	addDrain(rel, hosts, reports, guests, byHost, out, &sum)
	return out, sum
}

// guestsByHost holds indexes into guests, not copies: at 50,000 guests a
// copy each is 8 MB.
func guestsByHost(guests []nova.VTPMGuest) map[string][]int32 {
	byHost := map[string][]int32{}
	for i := range guests {
		byHost[guests[i].Host] = append(byHost[guests[i].Host], int32(i))
	}
	return byHost
}

// auditHost is one host's findings (on: its guests' indexes), in the order
// scripts have always read them, and its share of the summary.
func auditHost(rel nova.Release, h Host, reports map[string]hostcheck.Report, guests []nova.VTPMGuest, on []int32, sum *Summary) HostReport {
	r := apiView(rel, h, guests, on)
	usable := h.State == "up" && h.Status == "enabled"
	r.add(serviceCheck(h, usable))
	capab := CapabilityOf(rel, h.Traits)
	r.add(capabilityCheck(rel, h, capab))
	if c, ok := staleTraits(rel, h); ok {
		r.add(c)
	}
	if c, ok := ownerNovaCheck(rel, h); ok {
		r.add(c)
	}
	if len(on) > 0 {
		r.add(evacuationRisk(rel, guests, on, &r))
	}
	if rep, ok := reportOf(reports, h); ok {
		fromHostReport(&r, rel, h, rep)
	} else if len(reports) > 0 {
		noHostReport(&r)
	}
	r.Finish()
	tally(sum, &r, usable, capab)
	return r
}

// apiView is what the APIs say of the host: its Secure Boot trait and its
// vTPM guests (an empty list, never null, where it has none).
func apiView(rel nova.Release, h Host, guests []nova.VTPMGuest, on []int32) HostReport {
	r := HostReport{Report: hostcheck.Report{Host: h.Host, NovaRelease: rel.String(), Traits: h.Traits, VTPMGuests: []hostcheck.Guest{},
		Facts: hostcheck.HostInfo{HypervisorHostname: h.Hypervisor, SecureBoot: contains(h.Traits, "COMPUTE_SECURITY_UEFI_SECURE_BOOT")}}}
	if len(on) > 0 {
		r.VTPMGuests = make([]hostcheck.Guest, 0, len(on))
	}
	for _, i := range on {
		g := &guests[i]
		r.VTPMGuests = append(r.VTPMGuests, hostcheck.Guest{UUID: g.ServerID, Name: g.Name, Model: g.Model, Version: g.Version})
	}
	return r
}

// serviceCheck: Nova places nothing on a host that is down or disabled,
// and evacuates none of its vTPM guests.
func serviceCheck(h Host, usable bool) Check {
	if usable {
		return Check{ID: "SERVICE", Status: Pass, Message: "nova-compute is up and enabled"}
	}
	return Check{ID: "SERVICE", Status: Warn, Message: fmt.Sprintf("nova-compute is %s and %s: it takes no new guests, and its vTPM guests cannot be evacuated", h.State, h.Status),
		Remedy: "bring the service back; vTPM guests on a dead host wait for that host"}
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

// reportOf finds the host's `host check` report by hypervisor hostname
// first: ReportIndex keys a report by it only where no other report shares it.
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

// noHostReport: where reports were given, a host without one is a gap in
// the audit, not a clean host.
func noHostReport(r *HostReport) {
	r.add(Check{ID: "CONFIG-DRIFT", Status: Warn, Message: "no host check report for this host", Remedy: "run vtpmctl host check -f json on it"})
	bitLocker(r, nil, "no host check report for this host")
}

// tally adds a finished host to the summary. A host that is down or
// disabled adds no capacity: the scheduler places nothing there.
func tally(sum *Summary, r *HostReport, usable bool, capab Capability) {
	sum.AtRisk += len(r.AtRisk)
	if sum.BitLocker != nil {
		for _, g := range r.AtRisk {
			sum.BitLocker[g.BitLockerRisk]++
		}
	}
	if usable {
		sum.Usable++
		sum.TPM20 += b2i(capab.TPM20)
		sum.CRB += b2i(capab.CRB)
		sum.HostMode += b2i(capab.HostMode)
	}
	if r.Failed() {
		sum.Failing++
	}
}

// releaseMismatch: a host whose installed Nova is not the release the
// cloud's API answers for is mid-upgrade, or its report is stale.
func releaseMismatch(rel nova.Release, rep hostcheck.Report) (Check, bool) {
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

// capabilityCheck: what the release's scheduler can place here or, when
// no vTPM guest at all, the required traits that keep them away.
func capabilityCheck(rel nova.Release, h Host, c Capability) Check {
	if c.TPM20 || c.CRB {
		return Check{ID: "TRAITS", Status: Pass, Message: "the " + rel.String() + " scheduler can place here: " + strings.Join(placeable(rel, h, c), ", ")}
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

// evacuationRisk: Nova refuses evacuate for every vTPM guest, so a dead
// host strands all of its vTPM guests until the host itself comes back.
func evacuationRisk(rel nova.Release, guests []nova.VTPMGuest, on []int32, r *HostReport) Check {
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
	if rel.HostModeLiveMigration() && modes[nova.SecretHost] < len(on) {
		remedy += "; host-mode guests can at least be live-migrated away before maintenance (resize to hw:tpm_secret_security=host)"
	}
	return Check{ID: "EVACUATION-RISK", Status: Warn, Message: msg, Remedy: remedy}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
