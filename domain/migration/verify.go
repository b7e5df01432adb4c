package migration

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/completeness"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// VerifySchema names the JSON of `plan verify`.
const VerifySchema = "vtpmctl.plan-verify/1"

// Verdict of one planned VM after cutover.
const (
	Verified = "verified"  // the server has what the plan promised
	Missing  = "missing"   // a promise is not kept
	NotFound = "not found" // no server matched the VM
)

// Checks of one VM, in the order they run.
const (
	CheckVTPM       = "VTPM"        // version and model from flavor + image
	CheckFirmware   = "FIRMWARE"    // hw_firmware_type as the source booted
	CheckSecureBoot = "SECURE-BOOT" // os:secure_boot / os_secure_boot
	CheckSecret     = "SECRET"      // the Barbican secret (secrets audit)
	// CheckSecretACL is the part of SECRET that reads the secret's ACL
	// (the secrets audit's SECRET-ACL); plan verify skips it when asked
	// not to read ACLs (OptionNoACLs).
	CheckSecretACL  = "SECRET-ACL"
	CheckHostTraits = "HOST-TRAITS" // the server's host reports the traits
	CheckDomainTPM  = "DOMAIN-TPM"  // the running domain has its <tpm>
)

// VerifyCheck is one check of one VM.
type VerifyCheck struct {
	Check   string        `json:"check"`
	Status  result.Status `json:"status"`
	Message string        `json:"message"`
	Remedy  string        `json:"remedy,omitempty"`
	// BitLocker (DOMAIN-TPM only): the guest's NVRAM view as its host's
	// check report has it (host check's vtpm_guests[].bitlocker).
	BitLocker *hostcheck.GuestBitLocker `json:"bitlocker,omitempty"`
	// BitLockerNotChecked (DOMAIN-TPM only): why the domain was found but
	// its NVRAM view was not, e.g. a report from before host check had it.
	BitLockerNotChecked string `json:"bitlocker_not_checked,omitempty"`
}

// VMVerdict is what the cloud shows for one planned VM.
type VMVerdict struct {
	// Result is the VM's row status (RowStatus): fail when a promise is
	// not kept or no server matched, else its worst check.
	Result    result.Status `json:"result"`
	VM        string        `json:"vm"`
	Source    string        `json:"source"` // the vtpmctl:source value that ties a server to this VM
	ServerID  string        `json:"server_id,omitempty"`
	MatchedBy string        `json:"matched_by,omitempty"`
	Verdict   string        `json:"verdict"`
	Promised  string        `json:"promised_vtpm"` // the plan's target_vtpm
	Actual    string        `json:"actual_vtpm"`   // what Nova gives the server
	Checks    []VerifyCheck `json:"checks"`
	Findings  []string      `json:"findings,omitempty"` // every check not passed, and notes
	Remedy    string        `json:"remedy,omitempty"`
	// EscrowUnconfirmed: bitlocker_escrow is still "unconfirmed" in the plan.
	EscrowUnconfirmed bool `json:"bitlocker_escrow_unconfirmed,omitempty"`
}

// VerifyResult is `plan verify`'s typed result.
type VerifyResult struct {
	Schema   string      `json:"schema"`
	Release  string      `json:"nova_release"`
	VMs      []VMVerdict `json:"vms"`
	Verified int         `json:"verified"`
	Missing  int         `json:"missing"`
	NotFound int         `json:"not_found"`
	// NotChecked says which checks could not run at all, and why.
	NotChecked map[string]string `json:"not_checked"`
	// Incomplete are the reads that failed (a list, a project's secrets,
	// a secret's ACL): what they left unchecked is no verdict, and the
	// run fails on them.
	Incomplete completeness.Gaps `json:"incomplete,omitempty"`
	// Unconfirmed lists the VMs whose BitLocker escrow the team has not
	// confirmed in the plan.
	Unconfirmed []string `json:"bitlocker_escrow_unconfirmed"`
}

// Failed: something promised is missing, a VM has no server, or a read
// failed.
func (r *VerifyResult) Failed() bool { return r.Missing+r.NotFound > 0 || len(r.Incomplete) > 0 }

// VerifyInput is what the cloud showed; a nil map is a check that could
// not run, with its reason in NotChecked.
type VerifyInput struct {
	Inventory nova.Inventory
	Release   nova.Release
	Matches   map[int]Match // MatchServers
	// HostTraits: each service host's TPM traits in Placement.
	HostTraits map[string][]string
	// Secrets: the secrets audit's result per server ID.
	Secrets map[string]vtpmsecret.GuestResult
	// Reports: host check reports by host and hypervisor hostname.
	Reports    map[string]hostcheck.Report
	NotChecked map[string]string
	// Words spell what a remedy points to: the option that ties a
	// planned VM to a server (OptionMatch) and the host check command;
	// nil: the remedies name the server metadata only.
	Words advice.Words
}

// Verify checks each planned VM against the server found for it, with
// Nova's rules for the cloud's release: the vTPM (version and model from
// flavor and image), UEFI and Secure Boot as the source booted, its
// Barbican secret, its host's traits and the running domain's <tpm>.
func Verify(p *Plan, in VerifyInput) VerifyResult {
	res := VerifyResult{Schema: VerifySchema, Release: in.Release.String(), VMs: []VMVerdict{}, Unconfirmed: []string{}, NotChecked: map[string]string{}}
	for k, v := range in.NotChecked {
		res.NotChecked[k] = v
	}
	claimed := map[string][]int{} // server ID -> the planned VMs matched to it
	for i, m := range in.Matches {
		claimed[m.ServerIDs[0]] = append(claimed[m.ServerIDs[0]], i)
	}
	vtpm := map[string]nova.VTPMGuest{}
	for _, g := range in.Inventory.Guests.All() {
		vtpm[g.ServerID] = g
	}
	for i, vm := range p.VMs {
		v := VMVerdict{VM: vm.Name, Source: vm.Source(), Promised: vm.TargetVTPM, Checks: []VerifyCheck{}, EscrowUnconfirmed: vm.BitLockerEscrow == "unconfirmed"}
		if v.EscrowUnconfirmed {
			res.Unconfirmed = append(res.Unconfirmed, vm.Name)
		}
		m, ok := in.Matches[i]
		if !ok {
			tie := ""
			if match := Spell(in.Words, OptionMatch); match != "" {
				tie = match + " " + vm.Name + "=SERVER, or "
			}
			v.Verdict, v.Remedy = NotFound, fmt.Sprintf("create the server %s from image %s and flavor %s, or tie an existing one to it: %sserver metadata %s=%s",
				vm.Name, vm.TargetImage, vm.TargetFlavor, tie, SourceKey, v.Source)
			res.NotFound++
			res.VMs = append(res.VMs, v)
			continue
		}
		v.ServerID, v.MatchedBy = m.ServerIDs[0], m.By
		if len(m.ServerIDs) > 1 {
			v.Findings = append(v.Findings, fmt.Sprintf("%d servers match (by %s); verified %s, the first by ID", len(m.ServerIDs), m.By, v.ServerID))
		}
		if others := claimed[v.ServerID]; len(others) > 1 {
			var names []string // by source too: the same name on two vCenters
			for _, j := range others {
				if j != i {
					names = append(names, p.VMs[j].Name+" ("+p.VMs[j].Source()+")")
				}
			}
			tie := SourceKey
			if match := Spell(in.Words, OptionMatch); match != "" {
				tie = match + " or " + SourceKey
			}
			v.Findings = append(v.Findings, fmt.Sprintf("server %s also matches planned VM(s) %s: tie each to its own server with %s", v.ServerID, strings.Join(names, ", "), tie))
		}
		g, hasVTPM := vtpm[v.ServerID]
		v.Checks = verifyServer(vm, in.Inventory.Servers[v.ServerID], g, hasVTPM, in)
		v.Actual = "none"
		if hasVTPM {
			v.Actual = g.Version + " " + g.Model
		}
		var remedies []string
		for _, c := range v.Checks {
			// A check the whole run could not make is said once, in not_checked.
			if c.Status == result.Pass && c.BitLockerNotChecked != "" {
				// A note: the table shows no pass, and an NVRAM view
				// left out must not read as one that is fine.
				v.Findings = append(v.Findings, c.Check+": NVRAM view not checked: "+c.BitLockerNotChecked)
			}
			if c.Status == result.Pass || c.Status == result.Skip && in.NotChecked[c.Check] != "" {
				continue
			}
			f := c.Check + ": " + c.Message
			if c.Status == result.Warn && c.Remedy != "" {
				// A warning leaves the verdict alone and so the VM's
				// remedy: its fix is said with it (e.g. DOMAIN-TPM at
				// BitLocker-recovery risk high).
				f += " (fix: " + c.Remedy + ")"
			}
			v.Findings = append(v.Findings, f)
			if c.Status == result.Fail {
				v.Verdict = Missing
				if c.Remedy != "" {
					remedies = append(remedies, c.Remedy)
				}
			}
		}
		v.Remedy = strings.Join(remedies, "; ")
		if v.Verdict == Missing {
			res.Missing++
		} else {
			v.Verdict = Verified
			res.Verified++
		}
		res.VMs = append(res.VMs, v)
	}
	for i := range res.VMs {
		res.VMs[i].Result = res.VMs[i].RowStatus()
	}
	return res
}
