package migration

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// CheckStatus: the server runs (an ERROR server never booted its disk).
const CheckStatus = "STATUS"

// verifyServer runs the checks of one matched server that the plan gives
// a promise to check (no firmware check for a source whose firmware is
// unknown, no secret for a server without a vTPM). Image properties
// are read as they are now: Nova copied them into the instance at boot, so
// a property changed since then shows here but not in the guest (the
// DOMAIN-TPM check, from the host, sees the guest).
func verifyServer(vm PlanVM, srv nova.Server, g nova.VTPMGuest, hasVTPM bool, in VerifyInput) []VerifyCheck {
	var cs []VerifyCheck
	add := func(id string, st result.Status, msg, remedy string) {
		cs = append(cs, VerifyCheck{Check: id, Status: st, Message: msg, Remedy: remedy})
	}
	switch srv.Status {
	case "ACTIVE":
		add(CheckStatus, result.Pass, "ACTIVE", "")
	case "ERROR":
		add(CheckStatus, result.Fail, "the server is in ERROR", "openstack server show "+quote.Shell(srv.ID)+" names Nova's fault")
	default:
		add(CheckStatus, result.Warn, "the server is "+srv.Status+", not ACTIVE", "")
	}

	actual := "none"
	if hasVTPM {
		actual = g.Version + " " + g.Model
	}
	from := fmt.Sprintf("flavor %s, image %s", srv.Flavor.Name, imageName(srv))
	if srv.BootVolumeID != "" {
		from = fmt.Sprintf("flavor %s, boot volume %s", srv.Flavor.Name, srv.BootVolumeID)
	}
	switch {
	case actual == vm.TargetVTPM:
		add(CheckVTPM, result.Pass, "vTPM "+actual+" ("+from+")", "")
	case vm.TargetVTPM == "none":
		add(CheckVTPM, result.Warn, "the server has a vTPM ("+actual+") the plan did not ask for", "")
	default:
		add(CheckVTPM, result.Fail, fmt.Sprintf("the plan promised vTPM %s; Nova gives this server %s (%s)", vm.TargetVTPM, actual, from),
			fmt.Sprintf("resize the server to flavor %s and hard-reboot it (a vTPM added now starts blank)", vm.TargetFlavor))
	}

	bp := bootPropsOf(srv)
	if bp.props == nil {
		if vm.Firmware == "efi" || vm.Firmware == "bios" {
			add(CheckFirmware, result.Skip, bp.unread, "")
		}
	} else {
		fw := nova.BootFirmware(srv.Flavor, *bp.props)
		switch {
		case vm.Firmware == "efi" && fw.UEFI:
			add(CheckFirmware, result.Pass, "UEFI (hw_firmware_type=uefi), as the source", "")
		case vm.Firmware == "efi":
			add(CheckFirmware, result.Fail, fmt.Sprintf("the source boots UEFI; %s does not set hw_firmware_type=uefi: the guest gets BIOS and does not find its EFI boot partition", bp.what),
				bp.set("hw_firmware_type=uefi", "hw_machine_type=q35")+", and "+bp.recreate)
		case vm.Firmware == "bios" && fw.UEFI:
			add(CheckFirmware, result.Fail, "the source boots BIOS (an MBR disk); "+bp.what+" asks for UEFI: the guest does not boot",
				bp.unset("hw_firmware_type")+" until the follow-up conversion (follow_up in the plan), and "+bp.recreate)
		case vm.Firmware == "bios":
			msg := "BIOS, as the source"
			if len(vm.FollowUp) > 0 {
				msg += "; the UEFI conversion is a follow-up step"
			}
			add(CheckFirmware, result.Pass, msg, "")
		} // firmware unknown: the plan promised none, nothing to check
		switch {
		case vm.SecureBoot != "yes" || vm.Firmware != "efi":
			// not promised
		case fw.SecureBoot == "required":
			add(CheckSecureBoot, result.Pass, "required, as the source", "")
		case fw.SecureBoot == "optional":
			add(CheckSecureBoot, result.Warn, "optional: on only where the host has a Secure Boot loader", "set os_secure_boot=required on the "+bp.kind)
		default:
			policy := "not set"
			if fw.SecureBoot != "" {
				policy = fw.SecureBoot
			}
			add(CheckSecureBoot, result.Fail, fmt.Sprintf("the source boots with Secure Boot; neither the flavor's os:secure_boot nor the %s's os_secure_boot requires it (%s)", bp.kind, policy),
				"resize to a flavor with os:secure_boot=required, or "+bp.set("os_secure_boot=required")+" and "+bp.recreate)
		}
	}
	if !hasVTPM {
		return cs
	}
	cs = append(cs, secretCheck(srv, in), hostTraitsCheck(srv, g, in), domainCheck(srv, g, in))
	return cs
}

// bootProps are the image properties Nova read at boot where they can
// still be read: the boot volume's volume_image_metadata for a
// volume-backed server (Nova reads no Glance image for it), the image's
// otherwise; with how to name and change them.
type bootProps struct {
	props    *nova.Image
	kind     string // "image" or "volume"
	what     string // "image NAME" or "boot volume ID"
	ref      string // the argument of openstack image|volume set
	unread   string // why props is nil
	recreate string
}

func bootPropsOf(srv nova.Server) bootProps {
	switch {
	case srv.BootVolume != nil:
		return bootProps{props: srv.BootVolume, kind: "volume", what: "boot volume " + srv.BootVolumeID, ref: srv.BootVolumeID,
			// Nova copied the volume's properties at boot: the server must
			// be created again from the volume (deleted, keeping the volume).
			recreate: "create the server again from the volume (delete it keeping the volume)"}
	case srv.Image != nil:
		return bootProps{props: srv.Image, kind: "image", what: "image " + imageName(srv), ref: imageName(srv),
			// Nova copied the image's properties at boot and refuses to
			// rebuild a vTPM guest: a corrected image helps only a server
			// created again.
			recreate: "create the server again from it"}
	case srv.ImageID == "":
		return bootProps{unread: "the server boots from a volume whose image properties could not be read (no block storage in the catalog, or its boot volume is not visible)"}
	}
	return bootProps{unread: "the server's image " + srv.ImageID + " cannot be read (deleted or not visible)"}
}

// set is the openstack client's command that sets the properties kv on
// the image or volume.
func (b bootProps) set(kv ...string) string { return b.openstack("set", kv) }

// unset is the command that removes the property k.
func (b bootProps) unset(k string) string { return b.openstack("unset", []string{k}) }

// openstack is the openstack client's command line, word by word: its
// option for an image's properties, or a volume's image properties,
// before each argument.
func (b bootProps) openstack(verb string, args []string) string {
	option := map[string]string{"image": "--property", "volume": "--image-property"}[b.kind]
	line := []string{"openstack", b.kind, verb}
	for _, a := range args {
		line = append(line, option, a)
	}
	return strings.Join(append(line, quote.Shell(b.ref)), " ")
}

func imageName(s nova.Server) string {
	if s.Image != nil && s.Image.Name != "" {
		return s.Image.Name
	}
	return s.ImageID
}

func secretCheck(srv nova.Server, in VerifyInput) VerifyCheck {
	c := VerifyCheck{Check: CheckSecret, Status: result.Skip}
	if in.Secrets == nil {
		c.Message = "not checked: " + in.NotChecked[CheckSecret]
		return c
	}
	gr, ok := in.Secrets[srv.ID]
	if !ok || len(gr.Findings) == 0 {
		c.Message = "not audited"
		return c
	}
	var fails, remedies []string
	for _, f := range gr.Findings {
		if f.Status == result.Fail {
			fails = append(fails, string(f.Check)+": "+f.Message)
			if f.Remedy != "" {
				remedies = append(remedies, f.Remedy)
			}
		}
	}
	switch {
	case len(fails) > 0:
		c.Status, c.Message, c.Remedy = result.Fail, strings.Join(fails, "; "), strings.Join(remedies, "; ")
	case gr.NotAudited:
		// The audit's skips say why (its PROJECT skip), wherever they are.
		c.Message = or(strings.Join(skips(gr.Findings, false), "; "), "not audited")
	default:
		c.Status, c.Message = result.Pass, "secret "+gr.SecretID+" (secrets audit passed)"
		// A part the audit skipped (the ACL when not read, or one it
		// could not read) is named, wherever it is: that part is not a pass.
		if skipped := skips(gr.Findings, true); len(skipped) > 0 {
			c.Message = "secret " + gr.SecretID + " (secrets audit passed, except what was not checked: " + strings.Join(skipped, "; ") + ")"
		}
	}
	return c
}

// skips are the messages of the findings the audit skipped, by their
// status (never by their place in the list), each after its check's name
// if named.
func skips(fs []vtpmsecret.Finding, named bool) []string {
	var out []string
	for _, f := range fs {
		switch {
		case f.Status != result.Skip:
		case named:
			out = append(out, string(f.Check)+": "+f.Message)
		default:
			out = append(out, f.Message)
		}
	}
	return out
}

func hostTraitsCheck(srv nova.Server, g nova.VTPMGuest, in VerifyInput) VerifyCheck {
	c := VerifyCheck{Check: CheckHostTraits, Status: result.Skip}
	var mode nova.SecretMode
	if in.Release.HasSecretSecurity() {
		mode = g.Mode
	}
	need := nova.RequiredTraits(in.Release, g.Version, g.Model, mode)
	traits, ok := in.HostTraits[srv.Host]
	switch {
	case in.HostTraits == nil:
		c.Message = "not checked: " + in.NotChecked[CheckHostTraits]
		return c
	case srv.Host == "":
		c.Message = "the server's host is not shown to this user (admins see it)"
		return c
	case !ok:
		c.Message = "host " + srv.Host + " is not in the hypervisor list"
		return c
	}
	have := map[string]bool{}
	for _, t := range traits {
		have[t] = true
	}
	var lack []string
	for _, t := range need {
		if !have[t] {
			lack = append(lack, t)
		}
	}
	if len(lack) > 0 {
		c.Status = result.Fail
		c.Message = fmt.Sprintf("host %s does not report %s: the guest runs, but Nova will not place it there again (resize, cold migration, unshelve)", srv.Host, strings.Join(lack, ", "))
		c.Remedy = advice.Or(in.Words).Command(advice.HostCheck) + " on " + srv.Host + " says why"
		return c
	}
	c.Status, c.Message = result.Pass, "host "+srv.Host+" reports "+strings.Join(need, ", ")
	return c
}

func domainCheck(srv nova.Server, g nova.VTPMGuest, in VerifyInput) VerifyCheck {
	c := VerifyCheck{Check: CheckDomainTPM, Status: result.Skip}
	if len(in.Reports) == 0 {
		// The reason the caller gave (its flag's name), else what is missing.
		c.Message = "not checked: " + or(in.NotChecked[CheckDomainTPM], "no host check reports")
		return c
	}
	rep, ok := in.Reports[srv.Host]
	if srv.Host == "" || !ok {
		c.Message = "no host report for the server's host " + srv.Host
		return c
	}
	for _, d := range rep.VTPMGuests {
		if d.UUID != srv.ID {
			continue
		}
		if d.Version != g.Version || d.Model != g.Model {
			c.Status, c.Message = result.Fail, fmt.Sprintf("the domain on %s has a <tpm> %s %s, Nova's rules give %s %s", rep.Host, d.Version, d.Model, g.Version, g.Model)
			c.Remedy = "hard-reboot the server: Nova redefines the domain from its flavor and image"
		} else {
			c.Status, c.Message = result.Pass, fmt.Sprintf("the domain on %s has its <tpm> %s %s", rep.Host, d.Version, d.Model)
		}
		nvramView(&c, rep.Host, d.BitLocker, srv.ID, advice.Or(in.Words))
		return c
	}
	c.Status = result.Fail
	c.Message = "host " + rep.Host + "'s report lists no vTPM domain for this server"
	c.Remedy = "if the report is older than the server, run host check again; otherwise hard-reboot the server so Nova redefines its domain"
	return c
}

// nvramNotInReport: host check reports every vTPM guest's view, so a
// found domain without one is in a report written before it did.
const nvramNotInReport = "not in the host's check report (written before host check reported the NVRAM view): run host check again"

// nvramView adds to DOMAIN-TPM the guest's NVRAM view from its host's
// report. Risk high is a warning, not a failure: the domain has its TPM,
// but the next stop/start or hard reboot makes BitLocker ask for its
// recovery key. The fix is docs/bitlocker.md's (its risk table). An NVRAM
// without the 2023 KEK is a warning too (missingKEK), its fix after the
// escrow and before the check's own.
func nvramView(c *VerifyCheck, host string, b *hostcheck.GuestBitLocker, server string, w advice.Words) {
	if b == nil {
		c.BitLockerNotChecked = nvramNotInReport
		c.Message += "; NVRAM view not checked: " + nvramNotInReport
		return
	}
	view := *b // the result does not share the report's
	c.BitLocker = &view
	kept := ""
	if b.NVRAMKept != "" { // empty for a BIOS guest: no NVRAM to keep
		kept = "NVRAM kept " + string(b.NVRAMKept) + ", "
	}
	c.Message += fmt.Sprintf("; BitLocker-recovery risk %s (%svTPM state kept %s, certificates %s): %s",
		b.Risk, kept, b.TPMStateKept, b.Certs, strings.Join(b.Reasons, "; "))
	kekMsg, kekFix := missingKEK(host, server, b, w)
	c.Message += kekMsg
	if b.Risk != hostcheck.RiskHigh && kekFix == "" {
		return
	}
	if c.Status == result.Pass {
		c.Status = result.Warn
	}
	// First, so a failed check's hard reboot comes after the suspension.
	var fix []string
	if b.Risk == hostcheck.RiskHigh {
		fix = append(fix, "escrow the guest's BitLocker recovery key now; update Nova on "+host+" (host check: KEEP-TPM-STATE, NVRAM-KEPT); until then suspend BitLocker inside the guest (manage-bde -protectors -disable C: -RebootCount 1) before every stop/start or hard reboot")
	}
	if kekFix != "" {
		fix = append(fix, kekFix)
	}
	if c.Remedy != "" {
		fix = append(fix, c.Remedy)
	}
	c.Remedy = strings.Join(fix, "; ")
}

// or is s, or otherwise when s is empty.
func or(s, otherwise string) string {
	if s != "" {
		return s
	}
	return otherwise
}
