package hostcheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/vtpmctl/vtpmctl/nova"
)

// minVersions are driver.py MIN_LIBVIRT_VERSION / MIN_QEMU_VERSION per
// release (reference §2.2).
func minVersions(rel nova.Release) (libvirtV, qemuV Version) {
	switch {
	case rel >= nova.Epoxy:
		return V(8, 0, 0), V(6, 2, 0)
	case rel >= nova.Bobcat:
		return V(7, 0, 0), V(5, 2, 0)
	case rel >= nova.Wallaby:
		return V(6, 0, 0), V(4, 2, 0)
	}
	return V(5, 0, 0), V(4, 0, 0)
}

// keepTPMLibvirt: below it every temporary undefine wipes the TPM state.
var keepTPMLibvirt = V(8, 9, 0)

// errNotAsked: under --root this machine's libvirt would describe another
// host than the one audited.
var errNotAsked = errors.New("not asked: --root audits a mounted host, and this machine's libvirt would describe another host")

func (s *state) connect() {
	if s.o.Hypervisor == nil && s.o.LibvirtURI == "" && underRoot(s.o.Root) {
		s.hvErr = errNotAsked
		return
	}
	if s.o.Hypervisor != nil {
		s.hv = s.o.Hypervisor
	} else {
		uri := s.o.LibvirtURI
		if uri == "" {
			uri = s.conf.String("libvirt", "connection_uri", "qemu:///system")
		}
		s.o.LibvirtURI = uri
		h, err := ConnectLibvirt(uri)
		if err != nil {
			s.hvErr = err
			return
		}
		s.hv = h
	}
	if s.libV, s.qemuV, s.hvErr = s.hv.Versions(); s.hvErr != nil {
		return
	}
	s.r.Facts.HypervisorHostname, _ = s.hv.Hostname()
	virt := s.conf.String("libvirt", "virt_type", "kvm")
	var x string
	if x, s.capsErr = s.hv.DomainCapabilities(virt, ""); s.capsErr == nil {
		s.caps, s.capsErr = ParseDomCaps(x)
	}
	if xs, err := s.hv.Domains(); err == nil {
		for _, x := range xs {
			if d, err := ParseDomain(x); err == nil {
				s.domains = append(s.domains, d)
			}
		}
	}
	if xs, err := s.hv.Secrets(); err == nil {
		for _, x := range xs {
			if sec, err := ParseSecret(x); err == nil {
				s.secrets = append(s.secrets, sec)
			}
		}
	}
}

// binaryRoots are the filesystems whose PATH must hold swtpm: libvirtd's
// (it runs swtpm) and, when it is another one, nova-compute's (Nova looks
// for the binaries at startup on the releases that check them).
const novaFS = "nova-compute's filesystem"

func (s *state) binaryRoots() (roots map[string]string, unread []string) {
	roots = map[string]string{}
	add := func(role, dir, label string) {
		if why := s.layout.Unread[role]; why != "" {
			unread = append(unread, why)
			return
		}
		roots[label] = dir
	}
	if s.novaRoot == s.libvirtRoot && s.layout.Unread["nova"] == "" && s.layout.Unread["libvirt"] == "" {
		return map[string]string{"": s.libvirtRoot}, nil
	}
	add("libvirt", s.libvirtRoot, "libvirtd's filesystem")
	if s.rel.ChecksSwtpmBinaries() {
		add("nova", s.novaRoot, novaFS)
	}
	return roots, unread
}

func (s *state) checkBinaries() {
	var missing, found []string
	roots, unread := s.binaryRoots()
	if len(roots) == 0 {
		s.add("SWTPM-BINARIES", Skip, strings.Join(unread, "; "), "")
		return
	}
	var where []string       // missing, with the filesystem when there are two
	var novaMissing []string // what nova-compute itself fails to find
	for _, b := range []string{"swtpm", "swtpm_setup", "swtpm_ioctl"} {
		var lacking []string
		for label, root := range roots {
			p := lookPath(root, b)
			switch {
			case p == "":
				lacking = append(lacking, label)
				if label == "" || label == novaFS {
					novaMissing = append(novaMissing, b)
				}
			case label == "":
				found = append(found, p)
			}
		}
		if len(lacking) == 0 {
			continue
		}
		missing = append(missing, b)
		if lacking[0] == "" {
			where = append(where, b)
		} else {
			where = append(where, b+" (in "+strings.Join(sortedCopy(lacking), " and ")+")")
		}
	}
	if s.o.RunVersion != nil && len(found) > 0 {
		if out, err := s.o.RunVersion(filepath.Join(filepath.Dir(found[0]), "swtpm")); err == nil {
			s.r.Facts.SwtpmVersion = firstLine(out)
		}
	}
	if len(missing) == 0 {
		msg := "swtpm, swtpm_setup and swtpm_ioctl on PATH"
		if _, host := roots[""]; !host {
			var labels []string
			for l := range roots {
				labels = append(labels, l)
			}
			msg += " in " + strings.Join(sortedCopy(labels), " and ")
		}
		if v := s.r.Facts.SwtpmVersion; v != "" {
			msg += " (" + v + ")"
		}
		s.add("SWTPM-BINARIES", Pass, msg, "")
		return
	}
	// What nova-compute itself would say on this release.
	nmsg := ""
	hasTPMCaps := s.caps != nil && s.caps.TPM != nil
	switch {
	case s.rel < nova.Dalmatian && contains(novaMissing, "swtpm") && contains(novaMissing, "swtpm_setup"):
		nmsg = "vTPM support is configured but the 'swtpm' and 'swtpm_setup' binaries could not be found on PATH."
	case s.rel >= nova.Dalmatian && s.rel.ChecksSwtpmBinaries() && !hasTPMCaps && len(novaMissing) > 0:
		nmsg = "vTPM support is configured but some (or all) of the 'swtpm', 'swtpm_setup' and 'swtpm_ioctl' binaries could not be found on PATH."
	}
	st := Warn
	if contains(missing, "swtpm") || contains(missing, "swtpm_setup") {
		st = s.failIfEnabled()
	}
	msg := "missing on PATH: " + strings.Join(where, ", ") + "; libvirt cannot start a vTPM without swtpm and swtpm_setup"
	if nmsg != "" {
		msg = nmsg + " (" + msg + ")"
	} else {
		msg += fmt.Sprintf(" (nova-compute %s does not check this itself)", s.rel)
	}
	s.add("SWTPM-BINARIES", st, msg, "install the swtpm and swtpm-tools packages")
}

func (s *state) checkLibvirt() {
	if s.hvErr == errNotAsked {
		s.add("LIBVIRT", Skip, s.hvErr.Error(), "pass --libvirt-uri to ask the audited host's libvirt (e.g. qemu+ssh://root@HOST/system)")
		return
	}
	if s.hvErr != nil {
		s.add("LIBVIRT", s.failIfEnabled(), fmt.Sprintf("libvirt at %s not reachable: %v", s.o.LibvirtURI, s.hvErr), "start libvirtd, or pass --libvirt-uri")
		return
	}
	s.r.Facts.LibvirtVersion, s.r.Facts.QEMUVersion = s.libV.String(), s.qemuV.String()
	minL, minQ := minVersions(s.rel)
	var low []string
	if s.libV < minL {
		low = append(low, fmt.Sprintf("libvirt %s < %s", s.libV, minL))
	}
	if s.qemuV < minQ {
		low = append(low, fmt.Sprintf("QEMU %s < %s", s.qemuV, minQ))
	}
	if s.rel == nova.Victoria && s.libV < V(5, 6, 0) {
		low = append(low, "vTPM support requires Libvirt version 5.6.0 or greater.")
	}
	if len(low) > 0 {
		s.add("LIBVIRT", Fail, fmt.Sprintf("below the minimum of Nova %s: %s", s.rel, strings.Join(low, "; ")), "upgrade libvirt/QEMU")
		return
	}
	s.add("LIBVIRT", Pass, fmt.Sprintf("libvirt %s, QEMU %s at %s (Nova %s needs libvirt >= %s, QEMU >= %s)", s.libV, s.qemuV, s.o.LibvirtURI, s.rel, minL, minQ), "")
}

// checkDomCaps: 2024.2+ Nova asks domcaps (host.py supports_vtpm).
func (s *state) checkDomCaps() {
	if s.hv == nil || s.hvErr != nil {
		s.add("DOMCAPS-TPM", Skip, "no domain capabilities (libvirt not reachable)", "")
		return
	}
	if s.capsErr != nil {
		s.add("DOMCAPS-TPM", s.failIfEnabled(), "domain capabilities: "+s.capsErr.Error(), "run as root or a member of libvirt's socket group")
		return
	}
	if s.caps.TPM == nil && !s.rel.ChecksSwtpmBinaries() {
		// 2026.2 dropped the PATH fallback: no <tpm> means no vTPM.
		s.add("DOMCAPS-TPM", s.failIfEnabled(), fmt.Sprintf("vTPM support is configured but it's not supported by libvirt. (libvirt %s reports no <tpm> in domain capabilities)", s.libV), "upgrade libvirt to 8.0.0 or later")
		return
	}
	if s.caps.TPM == nil {
		s.add("DOMCAPS-TPM", Warn, fmt.Sprintf("libvirt %s reports no <tpm> in domain capabilities (libvirt < 8.0): Nova assumes every model and version", s.libV), "")
		return
	}
	models, _ := s.caps.TPMEnum("model")
	backends, _ := s.caps.TPMEnum("backendModel")
	versions, hasV := s.caps.TPMEnum("backendVersion")
	s.r.Facts.TPMModels, s.r.Facts.TPMVersions = models, versions
	if !hasV {
		s.r.Facts.TPMVersions = nova.TPMVersions // libvirt < 8.6: Nova assumes both
	}
	if s.caps.TPM.Supported != "yes" || !contains(backends, "emulator") {
		st := Warn
		if s.rel >= nova.Dalmatian {
			st = s.failIfEnabled()
		}
		s.add("DOMCAPS-TPM", st, "vTPM support is configured but it's not supported by libvirt.", "install swtpm so libvirt offers the emulator backend, then restart libvirtd")
		return
	}
	s.add("DOMCAPS-TPM", Pass, fmt.Sprintf("libvirt offers the emulator TPM: models %s, versions %s", strings.Join(models, ", "), strings.Join(s.r.Facts.TPMVersions, ", ")), "")
}

func (s *state) checkSecureBoot() {
	if s.hv == nil || s.hvErr != nil {
		s.add("UEFI-SECURE-BOOT", Skip, "libvirt not reachable", "")
		return
	}
	x, err := s.hv.DomainCapabilities(s.conf.String("libvirt", "virt_type", "kvm"), "q35")
	var caps *DomCaps
	if err == nil {
		caps, err = ParseDomCaps(x)
	}
	if err != nil {
		s.add("UEFI-SECURE-BOOT", Warn, "q35 domain capabilities: "+err.Error(), "")
		return
	}
	if l := caps.SecureBootLoaders(); len(l) > 0 {
		s.r.Facts.SecureBoot = true
		s.add("UEFI-SECURE-BOOT", Pass, "q35 UEFI loaders with Secure Boot: "+strings.Join(l, ", "), "")
		return
	}
	s.add("UEFI-SECURE-BOOT", Warn, "no Secure Boot UEFI loader for q35: the Windows-ready profile (os_secure_boot=required) cannot land here", "install OVMF (Debian/Ubuntu: ovmf; RHEL: edk2-ovmf)")
}

// checkKeepState: bug 2118888 and libvirt's temporary undefine. Where the
// installed Nova code is readable it decides; the release alone cannot,
// since only some 2025.1/2025.2 point releases carry the fix.
func (s *state) checkKeepState() {
	if s.hvErr != nil || s.hv == nil {
		s.add("KEEP-TPM-STATE", Skip, "libvirt not reachable", "")
		return
	}
	kept := func(k, evidence string) { s.r.Facts.StateKept = &StateKept{Kept: k, Evidence: evidence} }
	if s.libV < keepTPMLibvirt {
		kept("no", fmt.Sprintf("libvirt %s < 8.9.0", s.libV))
		s.add("KEEP-TPM-STATE", s.failIfEnabled(), fmt.Sprintf("libvirt %s < 8.9.0: every hard reboot, stop/start and block copy wipes the vTPM state (BitLocker asks for its recovery key)", s.libV), "upgrade libvirt to 8.9.0 or later")
		return
	}
	const wiped = "wipes vTPM state on every stop/start and hard reboot (bug 2118888): BitLocker asks for its recovery key"
	if fixed, path, ok := installedKeepTPMFix(s.novaRoot); ok {
		if fixed {
			kept("yes", fmt.Sprintf("libvirt %s and %s passes %s", s.libV, path, keepTPMMarker))
			s.add("KEEP-TPM-STATE", Pass, fmt.Sprintf("libvirt %s >= 8.9.0 and the installed Nova carries the bug 2118888 fix (%s uses %s): vTPM state survives stop/start and hard reboot", s.libV, path, keepTPMMarker), "")
			return
		}
		kept("no", fmt.Sprintf("%s lacks %s", path, keepTPMMarker))
		s.add("KEEP-TPM-STATE", Warn, fmt.Sprintf("the installed Nova %s %s (%s lacks %s)", s.rel, wiped, path, keepTPMMarker), s.keepStateRemedy())
		return
	}
	switch {
	case s.rel >= nova.Gazpacho:
		kept("yes", fmt.Sprintf("libvirt %s and Nova %s", s.libV, s.rel))
		s.add("KEEP-TPM-STATE", Pass, fmt.Sprintf("libvirt %s >= 8.9.0 and Nova %s keep vTPM state across stop/start and hard reboot", s.libV, s.rel), "")
	case s.rel >= nova.Epoxy:
		kept("unknown", fmt.Sprintf("Nova %s: depends on the point release; its code is not readable here", s.rel))
		s.add("KEEP-TPM-STATE", Warn, fmt.Sprintf("libvirt %s is fine; Nova %s keeps vTPM state only with the bug 2118888 backport in its point release, and no installed Nova code is readable here to tell", s.libV, s.rel), "run host check where the nova package is installed (or --root at that host's tree)")
	default:
		kept("no", fmt.Sprintf("Nova %s", s.rel))
		s.add("KEEP-TPM-STATE", Warn, fmt.Sprintf("Nova %s %s", s.rel.Long(), wiped), s.keepStateRemedy())
	}
}

func (s *state) keepStateRemedy() string {
	if s.rel >= nova.Epoxy && s.rel < nova.Gazpacho {
		return "update Nova to a " + s.rel.String() + " point release with the bug 2118888 backport (or 2026.1); until then escrow BitLocker recovery keys before any stop/start"
	}
	return "upgrade Nova to 2026.1 (or a 2025.1/2025.2 point release with the bug 2118888 backport); until then escrow BitLocker recovery keys before any stop/start"
}

func (s *state) stateDir() string {
	if s.o.StateDir != "" {
		return s.o.StateDir
	}
	return "/var/lib/libvirt/swtpm"
}

func (s *state) checkStateDir() {
	dir := s.r.Facts.StateDir
	if dir == "" {
		dir = s.stateDir()
		s.r.Facts.StateDir = dir
	}
	st, err := statIn(s.o.Root, dir)
	if err != nil {
		if len(s.vtpmDomains()) == 0 {
			s.add("SWTPM-STATE-DIR", Pass, dir+" does not exist yet (created with the first vTPM guest)", "")
		} else {
			s.add("SWTPM-STATE-DIR", Fail, dir+" is missing but vTPM guests are defined: their TPM state is gone", "restore "+dir+" from the host backup")
		}
		return
	}
	sys := st.Sys().(*syscall.Stat_t)
	owner, perm := s.lacc.userName(int(sys.Uid)), st.Mode().Perm()
	switch {
	case perm&0o022 != 0:
		s.add("SWTPM-STATE-DIR", Fail, fmt.Sprintf("%s is writable by group or others (%04o): any local user can replace a guest's TPM state", dir, perm), "chmod 0711 "+dir)
	case owner != "root" && owner != s.user:
		s.add("SWTPM-STATE-DIR", Fail, fmt.Sprintf("%s belongs to %s, neither root nor the swtpm user %s", dir, owner, s.user), fmt.Sprintf("chown %s:%s %s", s.user, s.group, dir))
	case owner != s.user && perm&0o001 == 0:
		s.add("SWTPM-STATE-DIR", Fail, fmt.Sprintf("%s (%s, %04o) cannot be traversed by the swtpm user %s", dir, owner, perm, s.user), "chmod 0711 "+dir)
	default:
		s.add("SWTPM-STATE-DIR", Pass, fmt.Sprintf("%s owned by %s, mode %04o; host backups must include it (snapshots never carry TPM state)", dir, owner, perm), "")
	}
}

func (s *state) checkLocalCA() {
	dir := "/var/lib/swtpm-localca"
	if why := s.layout.Unread["libvirt"]; why != "" {
		s.add("SWTPM-LOCALCA", Skip, dir+" is in libvirtd's filesystem: "+why, "")
		return
	}
	st, err := statIn(s.libvirtRoot, dir)
	if err != nil {
		s.add("SWTPM-LOCALCA", s.warnIfEnabled(), dir+" does not exist: swtpm_setup creates it on first use only if its parent is writable by "+s.user, "install swtpm-tools (it creates the directory for the swtpm user)")
		return
	}
	sys := st.Sys().(*syscall.Stat_t)
	uid, ok := s.lacc.users[s.user]
	gid := s.lacc.groups[s.group]
	perm := st.Mode().Perm()
	writable := ok && ((int(sys.Uid) == uid && perm&0o200 != 0) || (int(sys.Gid) == gid && perm&0o020 != 0) || perm&0o002 != 0)
	if !writable {
		s.add("SWTPM-LOCALCA", s.failIfEnabled(), fmt.Sprintf("%s (%s:%s %04o) is not writable by the swtpm user %s: swtpm_setup cannot create the TPM's EK certificate and the guest will not start",
			dir, s.lacc.userName(int(sys.Uid)), s.lacc.groupName(int(sys.Gid)), perm, s.user), fmt.Sprintf("chown -R %s:%s %s", s.user, s.group, dir))
		return
	}
	s.add("SWTPM-LOCALCA", Pass, fmt.Sprintf("%s writable by %s", dir, s.user), "")
}

func (s *state) checkAppArmor() {
	if s.o.Root != "" && s.o.Root != "/" {
		s.add("APPARMOR", Skip, "AppArmor state is only known on a running host", "")
		return
	}
	b, err := os.ReadFile("/sys/module/apparmor/parameters/enabled")
	if err != nil || strings.TrimSpace(string(b)) != "Y" {
		s.add("APPARMOR", Skip, "AppArmor is off", "")
		return
	}
	if fileExists("/etc/apparmor.d/usr.bin.swtpm") {
		s.add("APPARMOR", Pass, "AppArmor is on and swtpm has its profile (usr.bin.swtpm)", "")
		return
	}
	s.add("APPARMOR", Warn, "AppArmor is on but /etc/apparmor.d/usr.bin.swtpm is missing: libvirt's virt-aa-helper rules for swtpm state may not apply", "reinstall the swtpm package")
}

func (s *state) vtpmDomains() []*Domain {
	var out []*Domain
	for _, d := range s.domains {
		if len(d.TPMs) > 0 {
			out = append(out, d)
		}
	}
	return out
}

func (s *state) checkGuests() {
	if s.hv == nil || s.hvErr != nil {
		s.add("VTPM-GUESTS", Skip, "libvirt not reachable", "")
		return
	}
	doms := s.vtpmDomains()
	if len(doms) > 0 && !s.enabled {
		s.add("VTPM-GUESTS", Fail, "This host has instances with the vTPM feature enabled, but the host is not correctly configured; enable vTPM support.",
			"set [libvirt] swtpm_enabled = True: nova-compute refuses to start otherwise")
	}
	var bad []string
	for _, d := range doms {
		t := d.TPMs[0]
		sub := "tpm2"
		if t.Backend.Version == "1.2" {
			sub = "tpm1.2"
		}
		g := Guest{UUID: d.UUID, Name: d.Name, Model: t.Model, Version: t.Backend.Version,
			StateDir: filepath.Join(s.r.Facts.StateDir, d.UUID, sub)}
		if t.Backend.Encryption != nil {
			g.SecretID = t.Backend.Encryption.Secret
		}
		g.Mode = s.guestMode(d)
		s.r.VTPMGuests = append(s.r.VTPMGuests, g)
		if g.SecretID == "" {
			bad = append(bad, d.Name+": no <encryption secret=…> (its TPM state is not encrypted; Nova never creates such a guest)")
		}
		if _, err := statIn(s.o.Root, g.StateDir); err != nil {
			bad = append(bad, d.Name+": state dir "+g.StateDir+" missing (its TPM is blank at next start)")
		}
	}
	switch {
	case len(doms) == 0:
		s.add("VTPM-GUESTS", Pass, "no vTPM guests defined here", "")
	case len(bad) > 0:
		s.add("VTPM-GUESTS", Fail, strings.Join(bad, "; "), "restore the state from backup before the guest restarts; BitLocker will otherwise ask for its recovery key")
	default:
		s.add("VTPM-GUESTS", Pass, fmt.Sprintf("%d vTPM guest(s): state present and encrypted", len(doms)), "")
	}
}

// guestMode is a guest's secret security mode on 2026.1+: its flavor's
// hw:tpm_secret_security from the domain's Nova metadata (user when
// unset), or host when its libvirt secret is persistent. Before 2026.1
// every guest is "" (legacy: user).
func (s *state) guestMode(d *Domain) nova.SecretMode {
	if !s.rel.HasSecretSecurity() {
		return ""
	}
	if s.hostModeSecret(d.UUID) {
		return nova.SecretHost
	}
	if m, ok := d.ExtraSpec(nova.FlavorTPMSecretSecurity); ok && m != "" {
		return nova.SecretMode(m)
	}
	return nova.DefaultSecSecMode
}

func (s *state) hostModeSecret(uuid string) bool {
	for _, sec := range s.secrets {
		if sec.Usage.Type == "vtpm" && sec.Usage.Name == uuid && sec.Ephemeral == "no" {
			return true
		}
	}
	return false
}

// checkHostModeSecrets: host mode keeps a persistent libvirt secret per
// guest (usage vtpm <instance uuid>); a leftover one outlives its guest.
func (s *state) checkHostModeSecrets() {
	if s.hv == nil || s.hvErr != nil {
		s.add("HOST-MODE-SECRETS", Skip, "libvirt not reachable", "")
		return
	}
	known := map[string]bool{}
	for _, d := range s.domains {
		known[d.UUID] = true
	}
	var hostMode, orphans []string
	for _, sec := range s.secrets {
		if sec.Usage.Type != "vtpm" || sec.Ephemeral != "no" {
			continue
		}
		if known[sec.Usage.Name] {
			hostMode = append(hostMode, sec.Usage.Name)
		} else {
			orphans = append(orphans, sec.UUID+" (vtpm "+sec.Usage.Name+")")
		}
	}
	switch {
	case len(orphans) > 0:
		s.add("HOST-MODE-SECRETS", Warn, "persistent vTPM secrets of guests no longer on this host: "+strings.Join(orphans, ", "), "virsh secret-undefine them once the guests are confirmed gone")
	case !s.rel.HasSecretSecurity():
		s.add("HOST-MODE-SECRETS", Skip, "host mode arrives in 2026.1", "")
	default:
		s.add("HOST-MODE-SECRETS", Pass, fmt.Sprintf("%d host-mode guest(s) with their libvirt secret", len(hostMode)), "")
	}
}

// ExpectedTraits is what LibvirtDriver._get_tpm_traits (and the secure
// boot capability) report for this host on this release.
func ExpectedTraits(rel nova.Release, enabled bool, caps *DomCaps, modes []string, secureBoot bool) []string {
	var t []string
	if rel.RequiresOwnerNova() {
		t = append(t, "OWNER_NOVA") // every 2026.2 compute, whatever its config
	}
	if secureBoot && rel >= nova.Wallaby {
		t = append(t, "COMPUTE_SECURITY_UEFI_SECURE_BOOT")
	}
	if !enabled || !rel.SupportsVTPM() {
		return t
	}
	if rel < nova.Dalmatian {
		return append(t, "COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0")
	}
	models, hasM := []string{"tpm-tis", "tpm-crb"}, false
	versions, hasV := nova.TPMVersions, false
	if caps != nil && caps.TPM != nil {
		var m, v []string
		if m, hasM = caps.TPMEnum("model"); hasM {
			models = m
		}
		if v, hasV = caps.TPMEnum("backendVersion"); hasV {
			versions = v
		}
	}
	if contains(models, "tpm-tis") {
		t = append(t, "COMPUTE_SECURITY_TPM_TIS")
	}
	if contains(models, "tpm-crb") {
		t = append(t, "COMPUTE_SECURITY_TPM_CRB")
	}
	if contains(versions, "1.2") {
		t = append(t, "COMPUTE_SECURITY_TPM_1_2")
	}
	if contains(versions, "2.0") {
		t = append(t, "COMPUTE_SECURITY_TPM_2_0")
	}
	if rel.HasSecretSecurity() {
		for _, m := range modes {
			t = append(t, "COMPUTE_SECURITY_TPM_SECRET_SECURITY_"+strings.ToUpper(m))
		}
	}
	return t
}

func (s *state) checkTraits() {
	if s.rel >= nova.Dalmatian && s.enabled && s.caps == nil {
		s.add("TRAITS", Skip, "Nova 2024.2+ derives TPM traits from domain capabilities, which libvirt did not give", "")
		return
	}
	s.r.Traits = []string{}
	if s.libvirtDriver {
		s.r.Traits = sortedCopy(ExpectedTraits(s.rel, s.enabled, s.caps, s.modes, s.r.Facts.SecureBoot))
	}
	tpm := 0
	for _, t := range s.r.Traits {
		if strings.HasPrefix(t, "COMPUTE_SECURITY_TPM_") {
			tpm++
		}
	}
	if tpm == 0 {
		s.add("TRAITS", s.failIfEnabled(), "Nova reports no TPM trait for this host: no vTPM guest can be scheduled here", "fix the failures above")
		return
	}
	s.add("TRAITS", Pass, fmt.Sprintf("Nova %s reports: %s", s.rel, strings.Join(s.r.Traits, " ")), "")
}
