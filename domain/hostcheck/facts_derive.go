package hostcheck

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// Derived are the values several checks judge by, computed once from the
// facts (derive) so that no check depends on another having run.
type Derived struct {
	Enabled    bool  // [libvirt] swtpm_enabled
	EnabledErr error // not a boolean (then Enabled is false)

	ComputeDriver string
	LibvirtDriver bool // only the libvirt driver emulates a TPM
	VirtType      string

	User, Group               string // nova.conf's swtpm_user/swtpm_group
	LibvirtUser, LibvirtGroup string // qemu.conf's

	// Modes: the secret security modes this host offers (2026.1+), and
	// the entries of the list Nova ignores (quoted).
	Modes        []nova.SecretMode
	UnknownModes []string

	Bugs []BugExposure // the known bugs, decided on the installed code

	// Guests: the vTPM domains as the report lists them (libvirt
	// reachable only), without StateKept.
	Guests []Guest

	SecureBootLoaders []string // q35 loaders offering secure='yes'

	// Machine and FirmwareChoice: the Secure Boot descriptor a new guest gets.
	Machine        string
	FirmwareChoice fwChoice
}

// derive fills f.Derived from the facts. Pure.
func (f *Facts) derive() {
	d := Derived{}
	d.Enabled, d.EnabledErr = f.Conf.Bool("libvirt", "swtpm_enabled", false)
	d.ComputeDriver = f.Conf.String("DEFAULT", "compute_driver", "")
	d.LibvirtDriver = d.ComputeDriver == "" || d.ComputeDriver == "libvirt.LibvirtDriver" || strings.HasSuffix(d.ComputeDriver, ".LibvirtDriver")
	d.VirtType = f.Conf.String("libvirt", "virt_type", "kvm")
	d.User, d.Group = f.Conf.String("libvirt", "swtpm_user", "tss"), f.Conf.String("libvirt", "swtpm_group", "tss")
	d.LibvirtUser, d.LibvirtGroup = f.Qemu.String("swtpm_user", "tss"), f.Qemu.String("swtpm_group", "tss")
	if f.Release.HasSecretSecurity() {
		d.Modes, d.UnknownModes = secretModes(f.Conf)
	}
	d.Bugs = decideBugs(f.novaFile)
	if f.Libvirt.reachable() {
		d.Guests = vtpmGuests(f)
		if f.Libvirt.Q35Err == nil && f.Libvirt.Q35Caps != nil {
			d.SecureBootLoaders = f.Libvirt.Q35Caps.SecureBootLoaders()
		}
	}
	f.Derived = d
	f.Machine, f.FirmwareChoice = secureBootChoice(f)
}

// secretModes: Nova 2026.1's ListOpt has no choices; _get_tpm_traits sets
// the trait of each known mode it finds and ignores anything else.
func secretModes(c *NovaConf) (modes []nova.SecretMode, unknown []string) {
	for _, m := range c.List("libvirt", "supported_tpm_secret_security", []string{"user", "host", "deployment"}) {
		if nova.SecretMode(m).Known() {
			modes = append(modes, nova.SecretMode(m))
		} else {
			unknown = append(unknown, fmt.Sprintf("%q", m))
		}
	}
	return modes, unknown
}

// novaFile reads an installed Nova file from the facts.
func (f *Facts) novaFile(rel string) ([]byte, string, bool) {
	s, ok := f.NovaCode[rel]
	return s.Src, s.Path, ok
}

// novaCodeFiles are the installed Nova files the checks read.
func novaCodeFiles() []string {
	files := []string{"nova/virt/libvirt/host.py", "nova/virt/libvirt/guest.py"}
	for _, b := range KnownBugs {
		if !contains(files, b.File) {
			files = append(files, b.File)
		}
	}
	return files
}

// stateDirOf is the swtpm state directory the options or layout name.
func stateDirOf(dir string) string {
	if dir != "" {
		return dir
	}
	return "/var/lib/libvirt/swtpm"
}

func vtpmDomains(f *Facts) []*Domain {
	var out []*Domain
	for _, d := range f.Libvirt.Domains {
		if len(d.TPMs) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// vtpmGuests lists the vTPM domains with their state directory and mode.
func vtpmGuests(f *Facts) []Guest {
	var out []Guest
	for _, d := range vtpmDomains(f) {
		t := d.TPMs[0]
		sub := "tpm2"
		if t.Backend.Version == "1.2" {
			sub = "tpm1.2"
		}
		g := Guest{UUID: d.UUID, Name: d.Name, Model: t.Model, Version: t.Backend.Version,
			StateDir: filepath.Join(f.StateDir.Path, d.UUID, sub)}
		if t.Backend.Encryption != nil {
			g.SecretID = t.Backend.Encryption.Secret
		}
		g.Mode = guestMode(f, d)
		out = append(out, g)
	}
	return out
}

// guestMode is a guest's secret security mode on 2026.1+: its flavor's
// hw:tpm_secret_security from the domain's Nova metadata (user when
// unset), or host when its libvirt secret is persistent. Before 2026.1
// every guest is "" (legacy: user).
func guestMode(f *Facts, d *Domain) nova.SecretMode {
	if !f.Release.HasSecretSecurity() {
		return ""
	}
	if hostModeSecret(f.Libvirt.Secrets, d.UUID) {
		return nova.SecretHost
	}
	if m, ok := d.ExtraSpec(nova.FlavorTPMSecretSecurity); ok && m != "" {
		return nova.SecretMode(m)
	}
	return nova.DefaultSecSecMode
}

func hostModeSecret(secrets []*Secret, uuid string) bool {
	for _, sec := range secrets {
		if sec.Usage.Type == "vtpm" && sec.Usage.Name == uuid && sec.Ephemeral == "no" {
			return true
		}
	}
	return false
}

// secureBootChoice: the descriptor a new Secure Boot guest starts from.
// Nova before 2026.1 picks it itself (Host.get_loader, in nova-compute's
// filesystem); from 2026.1 libvirt picks it.
func secureBootChoice(f *Facts) (machine string, c fwChoice) {
	byNova := f.Release < nova.Gazpacho
	if src, _, ok := f.novaFile("nova/virt/libvirt/host.py"); ok {
		byNova = bytes.Contains(src, []byte("def get_loader("))
	}
	machine = "pc-q35-9.2"
	if q := f.Libvirt.QemuV; q != 0 {
		machine = fmt.Sprintf("pc-q35-%d.%d", q/1000000, q/1000%1000)
	}
	if byNova {
		b := bugByID(f.Bugs, "2122288")
		return machine, chooseByNova(f.Firmware.ByNova, "x86_64", machine, !b.Known || !b.Carried)
	}
	return machine, chooseByLibvirt(f.Firmware.ByLibvirt, "x86_64", machine)
}

// binaryRoots are the filesystems whose PATH must hold swtpm: libvirtd's
// (it runs swtpm) and, when it is another one, nova-compute's (Nova looks
// for the binaries at startup on the releases that check them).
const novaFS = "nova-compute's filesystem"

func binaryRoots(f *Facts) (roots map[string]string, unread []string) {
	roots = map[string]string{}
	add := func(role, dir, label string) {
		if why := f.Layout.Unread[role]; why != "" {
			unread = append(unread, why)
			return
		}
		roots[label] = dir
	}
	if f.NovaRoot == f.LibvirtRoot && f.Layout.Unread["nova"] == "" && f.Layout.Unread["libvirt"] == "" {
		return map[string]string{"": f.LibvirtRoot}, nil
	}
	add("libvirt", f.LibvirtRoot, "libvirtd's filesystem")
	if f.Release.ChecksSwtpmBinaries() {
		add("nova", f.NovaRoot, novaFS)
	}
	return roots, unread
}
