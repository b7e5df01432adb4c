package migration

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// DefaultRelease is the target of a plan made without a cloud or a
// release given: the newest release that is in production.
const DefaultRelease = nova.Gazpacho

// ImportOptions are a plan import's choices.
type ImportOptions struct {
	Catalogue []PlanFlavor // flavors to map onto (file or cloud)
	TPMModel  string       // model for new vTPMs; default tpm-crb
	Release   nova.Release // target cloud, for the operational limits
	Now       time.Time
	// Words spell the options a reason points to (OptionVTPMColumn);
	// nil: the reason names none.
	Words advice.Words
	// Header: comment lines above the written plan (WriteImport): who
	// wrote it and what to run next, in the caller's words.
	Header []string
}

// ImportSummary is what a migration team reads first.
type ImportSummary struct {
	VMs             int `json:"vms"`
	TargetVTPM      int `json:"target_vtpm"`
	SourceVTPM      int `json:"source_vtpm"`
	UnknownVTPM     int `json:"unknown_vtpm"`
	Flagged         int `json:"flagged"`
	Skipped         int `json:"skipped"`
	RowErrors       int `json:"row_errors"`
	ProposedFlavors int `json:"proposed_flavors"`
}

// Import applies the rules to every VM and maps it to a flavor, in
// memory; WriteImport streams the same plan for large inventories.
func Import(vms []SourceVM, o ImportOptions) (*Plan, ImportSummary) {
	im := prepare(vms, &o)
	p := &Plan{Version: 1, Source: PlanSource{Imported: im.imported}, Images: make([]PlanImage, 0, len(vms)), Flavors: im.flavors, VMs: make([]PlanVM, 0, len(vms))}
	for i, v := range vms {
		_, img := im.base(v, o)
		p.Images = append(p.Images, img)
		p.VMs = append(p.VMs, im.vm(i, v, o))
	}
	return p, im.sum
}

// imported is what the first pass over the inventory keeps: the flavors
// (written before the VMs) and each VM's flavor choice, which depends on
// the proposals made before it. Images and VMs are computed again, one at
// a time, when written: memory stays flat for large inventories.
type imported struct {
	imported string
	flavors  []PlanFlavor
	choice   []flavorChoice
	names    map[string]int
	sum      ImportSummary
}

type flavorChoice struct {
	flavor   string
	proposed bool
}

func prepare(vms []SourceVM, o *ImportOptions) *imported {
	if o.TPMModel == "" {
		o.TPMModel = "tpm-crb"
	}
	if o.Release == nova.ReleaseUnknown {
		o.Release = DefaultRelease
	}
	im := &imported{flavors: []PlanFlavor{}, choice: make([]flavorChoice, len(vms)),
		names: map[string]int{}, sum: ImportSummary{VMs: len(vms)}}
	if !o.Now.IsZero() {
		im.imported = o.Now.UTC().Format(time.RFC3339)
	}
	for _, v := range vms {
		im.names[v.Name]++
	}
	catalogue := append([]PlanFlavor{}, o.Catalogue...)
	sort.SliceStable(catalogue, func(i, j int) bool { return flavorLess(catalogue[i], catalogue[j]) })
	planned := map[string]bool{}
	for i, v := range vms {
		pv, img := im.base(v, *o)
		f, proposed := mapFlavor(catalogue, pv, img)
		if proposed {
			catalogue = append(catalogue, f)
			sort.SliceStable(catalogue, func(i, j int) bool { return flavorLess(catalogue[i], catalogue[j]) })
			im.sum.ProposedFlavors++
		}
		if !planned[f.Name] {
			planned[f.Name] = true
			im.flavors = append(im.flavors, f)
		}
		im.choice[i] = flavorChoice{flavor: f.Name, proposed: proposed}
		switch v.VTPM {
		case "yes":
			im.sum.SourceVTPM++
		case "unknown":
			im.sum.UnknownVTPM++
		}
		if img.TPMVersion != "" {
			im.sum.TargetVTPM++
		}
		if len(pv.Flags) > 0 {
			im.sum.Flagged++
		}
	}
	return im
}

// base is a VM's plan before its flavor: the rules, and the image name
// kept apart when two vCenters hold a VM of the same name.
func (im *imported) base(v SourceVM, o ImportOptions) (PlanVM, PlanImage) {
	pv, img := planVM(v, o)
	if im.names[v.Name] > 1 {
		pv.TargetImage = shortHost(v.VCenter) + "-" + v.Name
		img.Name = pv.TargetImage
	}
	return pv, img
}

// vm is the i-th VM's full plan entry.
func (im *imported) vm(i int, v SourceVM, o ImportOptions) PlanVM {
	pv, img := im.base(v, o)
	c := im.choice[i]
	if c.proposed {
		pv.Reasons = append(pv.Reasons, fmt.Sprintf("no catalogue flavor fits %d vCPUs / %d MiB / %d GiB%s: proposed %s", pv.VCPUs, pv.RAM, pv.DiskGiB, tpmSuffix(img), c.flavor))
	} else {
		pv.Reasons = append(pv.Reasons, "smallest fitting flavor: "+c.flavor)
	}
	pv.TargetFlavor = c.flavor
	return pv
}

func tpmSuffix(img PlanImage) string {
	if img.TPMVersion != "" {
		return " with a vTPM"
	}
	return ""
}

// planVM applies the vTPM, firmware and Secure Boot rules, each stated as
// a reason in the plan.
func planVM(v SourceVM, o ImportOptions) (PlanVM, PlanImage) {
	os := IdentifyOS(v.OSTools, v.GuestDetailed, v.GuestID, v.OSConfig)
	pv := PlanVM{Name: v.Name, VCenter: v.VCenter, VCenterUUID: v.VCenterUUID, MoRef: v.MoRef, BIOSUUID: v.BIOSUUID,
		GuestOS: os.Name, GuestID: v.GuestID, Firmware: firstNonEmpty(v.Firmware, "unknown"), SecureBoot: "unknown",
		SourceVTPM: v.VTPM, VTPMEvidence: v.VTPMEvidence, KeyProvider: v.KeyProvider, Snapshots: v.Snapshots, VCPUs: v.VCPUs, RAM: v.MemoryMiB, DiskGiB: (v.DiskMiB + 1023) / 1024,
		TargetImage: v.Name, TargetVTPM: "none"}
	if v.SecureBoot != nil {
		pv.SecureBoot = yesNo(*v.SecureBoot)
	}
	img := PlanImage{Name: v.Name, Properties: map[string]string{}}
	reason := func(f string, a ...any) { pv.Reasons = append(pv.Reasons, fmt.Sprintf(f, a...)) }
	flag := func(f string, a ...any) { pv.Flags = append(pv.Flags, fmt.Sprintf(f, a...)) }
	reason("guest OS %s (from %s)", os.Name, os.Source)
	if v.OSTools != "" && v.OSConfig != "" && !strings.EqualFold(v.OSTools, v.OSConfig) && os.Source == "VMware Tools" {
		flag("the configured OS (%s) differs from what VMware Tools reports (%s): the guest ID is stale; the plan follows VMware Tools", v.OSConfig, v.OSTools)
	}

	uefi, secure := v.Firmware == "efi", v.SecureBoot != nil && *v.SecureBoot
	switch v.VTPM {
	case "yes":
		img.TPMVersion, img.TPMModel = "2.0", o.TPMModel
		reason("the source has a vTPM (%s): the target gets TPM 2.0 (%s); its contents do not travel, the new vTPM is blank", v.VTPMEvidence, o.TPMModel)
	case "no":
		reason("no vTPM on the source: none added (a TPM the guest never had changes what boots; MTV 2.9 learned this)")
	default:
		if col := Spell(o.Words, OptionVTPMColumn); col != "" {
			reason("vTPM unknown (RVTools has no vTPM column; give govc JSON or %s): none added", col)
		} else {
			reason("vTPM unknown (RVTools has no vTPM column; give govc JSON or a vTPM column): none added")
		}
	}
	if os.Win11 && img.TPMVersion == "" && v.Firmware != "bios" {
		img.TPMVersion, img.TPMModel = "2.0", o.TPMModel
		flag("Windows 11 requires TPM 2.0, UEFI and Secure Boot: the target gets them although the source vTPM is %s", v.VTPM)
	}
	win11BIOS := os.Win11 && v.Firmware == "bios"
	if win11BIOS {
		// MTV's rule: the target boots the way the source did. The disk is
		// MBR; UEFI cannot boot it until mbr2gpt has run in the guest.
		img.TPMVersion, img.TPMModel = "", ""
		flag("Windows 11 on BIOS firmware: it moves as BIOS (no UEFI, Secure Boot or vTPM at cutover: the MBR disk would not boot); convert it afterwards (follow_up)")
		pv.FollowUp = biosToUEFI(pv.Name, o.TPMModel)
	} else if os.Win11 && !uefi {
		flag("Windows 11 on %s firmware: confirm it is EFI; the target boots UEFI", pv.Firmware)
		uefi, secure = true, true
	}
	if os.Win11 && !win11BIOS {
		secure = true
	}
	switch {
	case uefi:
		img.Properties["hw_firmware_type"], img.Properties["hw_machine_type"] = "uefi", "q35"
		reason("EFI firmware: hw_firmware_type=uefi and hw_machine_type=q35 (Secure Boot needs q35)")
	case v.Firmware == "bios":
		reason("BIOS firmware: no UEFI properties")
	default:
		flag("firmware unknown: decide UEFI or BIOS by hand before converting")
	}
	if secure && uefi {
		img.Properties["os_secure_boot"] = "required"
		reason("Secure Boot on: os_secure_boot=required")
	}
	if v.Firmware == "bios" && v.SecureBoot != nil && *v.SecureBoot {
		flag("BIOS with Secure Boot enabled is inconsistent (Secure Boot needs EFI): check the source's configuration")
	}
	if v.VTPM == "yes" && (v.Firmware == "bios" || (v.HWVersion > 0 && v.HWVersion < 14)) {
		flag("a vTPM on %s / vmx-%d is impossible on real vSphere (vTPM needs EFI and vmx-14+): the inventory data is suspect", pv.Firmware, v.HWVersion)
	}
	if os.Windows {
		img.Properties["os_type"], img.Properties["os_distro"] = "windows", "windows"
		if img.TPMVersion != "" && uefi && secure {
			img.Windows = true // the Windows-ready profile: TPM 2.0, UEFI, q35, Secure Boot
			for _, k := range []string{"hw_firmware_type", "hw_machine_type", "os_secure_boot", "os_type", "os_distro"} {
				delete(img.Properties, k)
			}
		}
	} else if os.Linux {
		img.Properties["os_type"] = "linux"
	}
	if img.TPMVersion != "" {
		pv.TargetVTPM = img.TPMVersion + " " + img.TPMModel
	}
	if len(img.Properties) == 0 {
		img.Properties = nil
	}
	if os.Windows && v.VTPM != "no" {
		pv.BitLockerEscrow = "unconfirmed"
	}
	pv.Checklist = checklist(pv, os, img, o.Release)
	return pv, img
}

// biosToUEFI is the later step for a Windows 11 guest that moved as BIOS:
// convert its disk in the guest, then boot a UEFI + Secure Boot + vTPM
// server from a snapshot (an image's firmware cannot change under a
// running server, and rebuild keeps the server's image properties).
func biosToUEFI(name, model string) []string {
	q := quote.Shell(name)
	img := quote.Shell(name + "-uefi")
	return []string{
		"in the guest, as Administrator: mbr2gpt /validate /allowFullOS, then mbr2gpt /convert /allowFullOS (do not enable BitLocker yet)",
		"openstack server stop " + q,
		"openstack server image create --wait --name " + img + " " + q,
		"openstack image set --property hw_firmware_type=uefi --property hw_machine_type=q35 --property os_secure_boot=required --property hw_tpm_version=2.0 --property hw_tpm_model=" + model + " " + img,
		fmt.Sprintf("openstack server create --image %s --flavor <the plan's vTPM flavor> --wait %s (then retire %s)", img, quote.Shell(name+"-uefi"), q),
		"in the new guest: confirm Secure Boot and TPM 2.0 (msinfo32, tpm.msc), then enable BitLocker and escrow its recovery key",
	}
}

// checklist is what to do before cutover and check after it.
func checklist(pv PlanVM, os GuestOS, img PlanImage, rel nova.Release) []PlanCheck {
	var c []PlanCheck
	add := func(ph Phase, items ...string) {
		for _, it := range items {
			c = append(c, PlanCheck{Phase: ph, Item: it})
		}
	}
	switch {
	case pv.SourceVTPM == "yes":
		add(PhaseBefore, "the source vTPM (its Endorsement Key and everything sealed to it) does not migrate: the target starts with a new, blank TPM")
	case pv.SourceVTPM == "unknown":
		add(PhaseBefore, "confirm whether the source has a vTPM: govc device.info -json -vm "+quote.Shell(pv.Name)+" | grep VirtualTPM")
	}
	if pv.Snapshots > 0 {
		add(PhaseBefore, fmt.Sprintf("the source has %d snapshot(s): consolidate or delete them before the export (a converter reads the current state only): govc snapshot.remove -vm %s '*'", pv.Snapshots, quote.Shell(pv.Name)))
	}
	if os.Windows && pv.SourceVTPM != "no" {
		add(PhaseBefore, "BitLocker: back up the recovery key (manage-bde -protectors -get C:) to AD DS / Entra ID / MBAM, or suspend it (manage-bde -protectors -disable C: -RebootCount 2) before cutover; expect one recovery-key prompt at first boot",
			"list what else is sealed to the TPM and re-enrol it after cutover: Windows Hello, Credential Guard / VBS, TPM-backed certificates and keys (Microsoft Platform Crypto Provider)")
	}
	if os.Linux && pv.SourceVTPM != "no" {
		add(PhaseBefore, "LUKS sealed to the TPM (clevis, systemd-cryptenroll): add a passphrase keyslot before converting; wipe the stale TPM slot and re-seal after")
	}
	if img.TPMVersion != "" {
		if os.Windows {
			add(PhaseAfter, "after first boot: Get-Tpm shows TpmPresent True and TpmReady True")
		} else {
			add(PhaseAfter, "after first boot: tpm2_getcap properties-fixed answers (the TPM is present)")
		}
		var ops []string
		for _, op := range nova.UnsupportedOperations(rel, nova.SecretUser) {
			if op.Name != "resize-across-deployment" {
				ops = append(ops, op.Name)
			}
		}
		lim := fmt.Sprintf("on the target (Nova %s) the guest cannot: %s", rel, strings.Join(ops, ", "))
		if rel.HostModeLiveMigration() {
			lim += " (a flavor with hw:tpm_secret_security=host allows live migration)"
		}
		add(PhaseLimits, lim, "snapshots and backups carry no TPM state: a restored or rebuilt guest gets a blank vTPM; include the compute host's vTPM state directory in host backups")
	}
	return c
}

func flavorLess(a, b PlanFlavor) bool {
	if a.VCPUs != b.VCPUs {
		return a.VCPUs < b.VCPUs
	}
	if a.RAM != b.RAM {
		return a.RAM < b.RAM
	}
	if a.Disk != b.Disk {
		return a.Disk < b.Disk
	}
	return a.Name < b.Name
}

// mapFlavor picks the smallest catalogue flavor that fits and carries
// matching vTPM specs where the VM needs one (and none where it does
// not); with no fit it proposes a new flavor.
func mapFlavor(cat []PlanFlavor, pv PlanVM, img PlanImage) (PlanFlavor, bool) {
	ramGiB := (pv.RAM + 1023) / 1024
	for _, f := range cat {
		if f.VCPUs < pv.VCPUs || f.RAM < pv.RAM || f.Disk < pv.DiskGiB {
			continue
		}
		if f.Proposed && (f.VCPUs != max(pv.VCPUs, 1) || f.RAM != max(ramGiB, 1)*1024 || f.Disk != pv.DiskGiB) {
			continue // a flavor proposed for another VM is reused only when it fits exactly
		}
		if img.TPMVersion == "" && f.TPMVersion != "" {
			continue // would give the guest a TPM it never had
		}
		if img.TPMVersion != "" && (f.TPMVersion != img.TPMVersion || (f.TPMModel != "" && f.TPMModel != img.TPMModel)) {
			continue
		}
		return f, false
	}
	f := PlanFlavor{VCPUs: max(pv.VCPUs, 1), RAM: max(ramGiB, 1) * 1024, Disk: pv.DiskGiB, Proposed: true}
	prefix := "std"
	if img.TPMVersion != "" {
		prefix, f.TPMVersion, f.TPMModel = "vtpm", img.TPMVersion, img.TPMModel
	}
	f.Name = fmt.Sprintf("%s.%dc%dg%dd", prefix, f.VCPUs, f.RAM/1024, f.Disk)
	return f, true
}
