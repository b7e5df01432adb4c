package fleet

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
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

// Summary counts the hosts that are up, enabled and able. Each key says
// what it counts: compute_hosts is every host of the hypervisor list (up
// or not), hosts_up_and_enabled those the scheduler places guests on
// (upgrade check's hosts_up_and_enabled is the same count).
type Summary struct {
	Hosts    int `json:"compute_hosts"`
	Usable   int `json:"hosts_up_and_enabled"`
	TPM20    int `json:"can_take_tpm_2_0"`
	CRB      int `json:"can_take_crb"`
	HostMode int `json:"can_take_host_mode"`
	Failing  int `json:"hosts_failing"`
	AtRisk   int `json:"vtpm_guests_at_risk"`
	// BitLocker: the vTPM guests by BitLocker-recovery risk, from the
	// hosts' check reports (a guest without one is unknown); absent when
	// no report was given.
	BitLocker map[hostcheck.Risk]int `json:"bitlocker_risk_guests,omitempty"`
	// SecureBoot: the vTPM guests by the 2023 certificates their NVRAM
	// enrols and by remedy, from the same reports; absent without them.
	SecureBoot *hostcheck.SecureBootCounts `json:"secure_boot_guests,omitempty"`
	// Drain: the vTPM guests by how they would leave their host.
	Drain map[DrainAction]int `json:"drain,omitempty"`
}

// AuditHosts checks each host's Placement traits against what its Nova
// release requires and, where a `host check` report exists for the host,
// against what its configuration makes Nova report.
func AuditHosts(rel nova.Release, hosts []Host, reports map[string]hostcheck.Report, guests nova.GuestList) ([]HostReport, Summary) {
	byHost := guestsByHost(guests)
	var out []HostReport // nil without hosts: the JSON has always said null
	if len(hosts) > 0 {
		out = make([]HostReport, 0, len(hosts))
	}
	sum := Summary{Hosts: len(hosts)}
	if len(reports) > 0 {
		// Only with reports: a count without any would claim zero high risk.
		sum.BitLocker = map[hostcheck.Risk]int{}
		sum.SecureBoot = hostcheck.NewSecureBootCounts()
	}
	for _, h := range hosts {
		out = append(out, auditHost(rel, h, reports, guests, byHost[h.Host], &sum))
	}
	addDrain(rel, hosts, reports, guests, byHost, out, &sum)
	return out, sum
}

// guestsByHost holds indexes into guests, not copies: at 50,000 guests a
// copy each is 8 MB.
func guestsByHost(guests nova.GuestList) map[string][]int32 {
	byHost := map[string][]int32{}
	for i, g := range guests.All() {
		byHost[g.Host] = append(byHost[g.Host], int32(i))
	}
	return byHost
}

// auditHost is one host's findings (on: its guests' indexes), in the order
// scripts have always read them, and its share of the summary.
func auditHost(rel nova.Release, h Host, reports map[string]hostcheck.Report, guests nova.GuestList, on []int32, sum *Summary) HostReport {
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
	if len(reports) > 0 {
		r.SecureBoot = hostcheck.CountSecureBoot(r.VTPMGuests)
	}
	r.Finish()
	tally(sum, &r, usable, capab)
	return r
}

// apiView is what the APIs say of the host: its Secure Boot trait and its
// vTPM guests (an empty list, never null, where it has none).
func apiView(rel nova.Release, h Host, guests nova.GuestList, on []int32) HostReport {
	r := HostReport{Report: hostcheck.Report{Host: h.Host, NovaRelease: rel, Traits: h.Traits, VTPMGuests: []hostcheck.Guest{},
		Facts: hostcheck.HostInfo{HypervisorHostname: h.Hypervisor, SecureBoot: contains(h.Traits, "COMPUTE_SECURITY_UEFI_SECURE_BOOT")}},
		Hypervisor: h.Hypervisor, ResourceProvider: h.RPUUID, ServiceState: h.State, ServiceStatus: h.Status}
	if len(on) > 0 {
		r.VTPMGuests = make([]hostcheck.Guest, 0, len(on))
	}
	for _, i := range on {
		g := guests.At(int(i))
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

// evacuationRisk: Nova refuses evacuate for every vTPM guest, so a dead
// host strands all of its vTPM guests until the host itself comes back.
func evacuationRisk(rel nova.Release, guests nova.GuestList, on []int32, r *HostReport) Check {
	modes := map[nova.SecretMode]int{}
	r.AtRisk = make([]RiskGuest, 0, len(on))
	for _, i := range on {
		g := guests.At(int(i))
		modes[g.Mode]++
		r.AtRisk = append(r.AtRisk, RiskGuest{ServerID: g.ServerID, Name: g.Name, Owner: g.UserID, Project: g.ProjectID, Mode: g.Mode, Evidence: g.Evidence})
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

// tally adds a finished host to the summary. A host that is down or
// disabled adds no capacity: the scheduler places nothing there.
func tally(sum *Summary, r *HostReport, usable bool, capab Capability) {
	sum.AtRisk += len(r.AtRisk)
	if sum.BitLocker != nil {
		for _, g := range r.AtRisk {
			sum.BitLocker[g.BitLockerRisk]++
		}
	}
	if sum.SecureBoot != nil && r.SecureBoot != nil {
		sum.SecureBoot.Merge(r.SecureBoot)
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
