package hostcheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// errNotAsked: auditing a mounted tree, this machine's libvirt would
// describe another host than the one audited.
var errNotAsked = errors.New("not asked: a mounted host's tree is audited, and this machine's libvirt would describe another host")

// gatherContext reads every fact once: the one function of host check
// that touches files, libvirt and programs. Its errors are the inputs the
// checks cannot start from (a malformed config, an unknown release), and
// ctx's once it is done: the firmware files (AAVMF's are 64 MiB, one per
// guest) are read under ctx, so SIGINT or SIGTERM ends host check at once
// instead of producing a report whose reads were cut short.
func gatherContext(ctx context.Context, o Options) (*Facts, error) {
	if o.Root != "" {
		o.Root = filepath.Clean(o.Root)
	}
	f := &Facts{Root: o.Root, Words: o.Words, Now: clock()}
	l, err := settleLayout(o)
	if err != nil {
		return nil, err
	}
	f.Layout, f.NovaRoot, f.LibvirtRoot = l, o.Root, o.Root
	if l.NovaRoot != "" {
		f.NovaRoot = l.NovaRoot
	}
	if l.LibvirtRoot != "" {
		f.LibvirtRoot = l.LibvirtRoot
	}
	if f.Conf, err = LoadNovaConf(o.Root, l.NovaConf, l.NovaConfDir); err != nil {
		return nil, err
	}
	if _, err := statIn(o.Root, l.QemuConf); err == nil { // absent: libvirt's defaults apply
		if f.Qemu, err = LoadQemuConf(o.Root, l.QemuConf); err != nil {
			return nil, err
		}
	}
	if f.Release, err = release(o.Release, f.NovaRoot); err != nil {
		return nil, err
	}
	f.Host = f.Conf.String("DEFAULT", "host", hostname(o))
	f.Accounts, f.LibvirtAccounts = loadAccounts(f.NovaRoot), loadAccounts(f.LibvirtRoot)
	f.Libvirt = askLibvirt(o, l.LibvirtURI, f.Conf)
	f.StateDir = statPath(o.Root, stateDirOf(l.StateDir))
	f.LocalCA = statPath(f.LibvirtRoot, "/var/lib/swtpm-localca")
	f.AppArmor = readAppArmor(o.Root)
	f.NovaCode = readNovaCode(f.NovaRoot)
	f.Firmware = FirmwareFacts{ByNova: loadDescriptors(f.NovaRoot, false), ByLibvirt: loadDescriptors(f.LibvirtRoot, true)}
	f.Binaries = findBinaries(f, o.RunVersion)
	f.Migration = gatherMigration(f, o.RunCapabilities)
	f.derive()
	// What the derived values point at: each guest's state, the template
	// of the chosen firmware.
	f.GuestState = map[string]bool{}
	for _, g := range f.Guests {
		_, err := statIn(o.Root, g.StateDir)
		f.GuestState[g.StateDir] = err == nil
	}
	f.SecureBoot = readTemplate(ctx, f.LibvirtRoot, f.FirmwareChoice)
	f.GuestNVRAM = readGuestNVRAM(ctx, f)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

// readGuestNVRAM reads the Secure Boot variables of each vTPM guest's
// NVRAM file, below libvirtd's root (a symlink cannot lead out of it),
// regular files only and size-capped (uefi.ReadFile).
func readGuestNVRAM(ctx context.Context, f *Facts) map[string]guestNVRAM {
	out := map[string]guestNVRAM{}
	for _, d := range vtpmDomains(f) {
		if ctx.Err() != nil {
			break // gather returns ctx's error: no file more is read
		}
		n := guestNVRAM{Path: strings.TrimSpace(d.OS.NVRAM.Path), SecureBoot: d.SecureBoot()}
		switch {
		case n.Path == "":
		case f.Layout.Unread["libvirt"] != "":
			n.Err = errors.New("libvirtd's filesystem: " + f.Layout.Unread["libvirt"])
		case safeHostPath(n.Path) != nil:
			n.Err = fmt.Errorf("nvram %q is not a clean absolute path; not read", n.Path)
		default:
			n.SB, n.Err = readSecureBoot(ctx, f.LibvirtRoot, n.Path)
		}
		out[d.UUID] = n
	}
	return out
}

func readSecureBoot(ctx context.Context, root, p string) (*uefi.SecureBoot, error) {
	rp, err := resolve(root, p)
	if err != nil {
		return nil, err
	}
	vs, err := uefi.ReadFileContext(ctx, rp)
	if err != nil {
		return nil, err
	}
	return vs.SecureBootContext(ctx)
}

// release: the one given, else the installed nova package's.
func release(given nova.Release, novaRoot string) (nova.Release, error) {
	ev := nova.ReleaseEvidence{Flag: given}
	if given == nova.ReleaseUnknown {
		var err error
		if ev.Installed, err = DetectNovaRelease(novaRoot); err != nil {
			return nova.ReleaseUnknown, err
		}
	}
	res, err := nova.ResolveRelease(ev)
	return res.Release, err
}

// readNovaCode reads the installed Nova files the checks judge.
func readNovaCode(root string) map[string]NovaSource {
	code := map[string]NovaSource{}
	for _, rel := range novaCodeFiles() {
		if b, p, ok := installedNovaFile(root, rel); ok {
			code[rel] = NovaSource{Path: p, Src: b}
		}
	}
	return code
}

// settleLayout: the layout, with the paths and roots the options name
// instead of its own.
func settleLayout(o Options) (Layout, error) {
	l, err := ResolveLayout(o.Layout, o.Root, o.ContainerRoot, advice.Or(o.Words))
	if err != nil {
		return Layout{}, err
	}
	if o.NovaRoot != "" {
		l.NovaRoot = filepath.Clean(o.NovaRoot)
		delete(l.Unread, "nova")
	}
	if o.LibvirtRoot != "" {
		l.LibvirtRoot = filepath.Clean(o.LibvirtRoot)
		delete(l.Unread, "libvirt")
	}
	if len(o.NovaConf) > 0 || o.NovaConfDir != "" {
		l.NovaConf, l.NovaConfDir = o.NovaConf, o.NovaConfDir
	} else if len(l.NovaConf) == 0 {
		l.NovaConf = []string{"/etc/nova/nova.conf"}
		if _, err := statIn(o.Root, "/etc/nova/nova-compute.conf"); err == nil {
			l.NovaConf = append(l.NovaConf, "/etc/nova/nova-compute.conf")
		}
	}
	for _, p := range []struct{ opt, lay *string }{{&o.QemuConf, &l.QemuConf}, {&o.StateDir, &l.StateDir}, {&o.LibvirtURI, &l.LibvirtURI}} {
		if *p.opt != "" {
			*p.lay = *p.opt
		}
	}
	return l, nil
}

// hostname: under a root, the mounted host's name, never the auditing
// machine's.
func hostname(o Options) string {
	if !underRoot(o.Root) {
		return o.Hostname
	}
	if b, err := readFile(o.Root, "/etc/hostname"); err == nil && firstLine(string(b)) != "" {
		return firstLine(string(b))
	}
	return "unknown (no host in nova.conf, no /etc/hostname below the root)"
}

// askLibvirt: versions, host name, domain capabilities (default machine
// and q35), domains and secrets' metadata. uri "" is [libvirt]
// connection_uri, else qemu:///system.
func askLibvirt(o Options, uri string, conf *NovaConf) LibvirtFacts {
	lf := LibvirtFacts{URI: uri}
	if o.Hypervisor == nil && uri == "" && underRoot(o.Root) {
		lf.Err = errNotAsked
		return lf
	}
	hv := o.Hypervisor
	if hv == nil {
		if lf.URI == "" {
			lf.URI = conf.String("libvirt", "connection_uri", "qemu:///system")
		}
		h, err := ConnectLibvirt(lf.URI)
		if err != nil {
			lf.Err = err
			return lf
		}
		hv = h
	}
	defer hv.Close()
	lf.Connected = true
	if lf.LibV, lf.QemuV, lf.Err = hv.Versions(); lf.Err != nil {
		return lf
	}
	lf.HypervisorHostname, _ = hv.Hostname()
	virt := conf.String("libvirt", "virt_type", "kvm")
	lf.Caps, lf.CapsErr = domCaps(hv, virt, "")
	lf.Q35Caps, lf.Q35Err = domCaps(hv, virt, "q35")
	if xs, err := hv.Domains(); err == nil {
		for _, x := range xs {
			if d, err := ParseDomain(x); err == nil {
				lf.Domains = append(lf.Domains, d)
			}
		}
	}
	if xs, err := hv.Secrets(); err == nil {
		for _, x := range xs {
			if sec, err := ParseSecret(x); err == nil {
				lf.Secrets = append(lf.Secrets, sec)
			}
		}
	}
	return lf
}

func domCaps(hv Hypervisor, virt, machine string) (*DomCaps, error) {
	x, err := hv.DomainCapabilities(virt, machine)
	if err != nil {
		return nil, err
	}
	return ParseDomCaps(x)
}

// findBinaries looks for swtpm, swtpm_setup and swtpm_ioctl on PATH in
// each filesystem that needs them, and asks the host's swtpm its version
// when runVersion may run it.
func findBinaries(f *Facts, runVersion func(string) (string, error)) BinaryFacts {
	roots, unread := binaryRoots(f)
	bf := BinaryFacts{Paths: map[string]map[string]string{}, Unread: unread}
	var found []string
	for label, root := range roots {
		bf.Paths[label] = map[string]string{}
		for _, b := range swtpmBinaries {
			p := lookPath(root, b)
			bf.Paths[label][b] = p
			if label == "" && p != "" {
				found = append(found, p)
			}
		}
	}
	if runVersion != nil && len(found) > 0 {
		if out, err := runVersion(filepath.Join(filepath.Dir(found[0]), "swtpm")); err == nil {
			bf.Version = firstLine(out)
		}
	}
	return bf
}

var swtpmBinaries = []string{"swtpm", "swtpm_setup", "swtpm_ioctl"}

func readAppArmor(root string) AppArmorFacts {
	if underRoot(root) {
		return AppArmorFacts{}
	}
	a := AppArmorFacts{Known: true}
	b, err := os.ReadFile("/sys/module/apparmor/parameters/enabled")
	a.Enabled = err == nil && strings.TrimSpace(string(b)) == "Y"
	a.SwtpmProfile = fileExists("/etc/apparmor.d/usr.bin.swtpm")
	return a
}

// readTemplate reads the Secure Boot variables of the template the chosen
// descriptor names, in libvirtd's filesystem (libvirt copies it); a path
// that is not clean is not read.
func readTemplate(ctx context.Context, root string, c fwChoice) TemplateFacts {
	t := TemplateFacts{Path: c.Template}
	if c.Descriptor == nil || safeHostPath(c.Template) != nil {
		return t
	}
	t.SB, t.Err = readSecureBoot(ctx, root, c.Template)
	return t
}
