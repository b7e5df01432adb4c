package hostcheck

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/nova"
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

func checkBinaries(f *Facts) []Check {
	bf := f.Binaries
	if len(bf.Paths) == 0 {
		return one("SWTPM-BINARIES", Skip, strings.Join(bf.Unread, "; "), "")
	}
	missing, where, novaMissing := missingBinaries(bf)
	if len(missing) == 0 {
		msg := "swtpm, swtpm_setup and swtpm_ioctl on PATH"
		if _, host := bf.Paths[""]; !host {
			var labels []string
			for l := range bf.Paths {
				labels = append(labels, l)
			}
			msg += " in " + strings.Join(sortedCopy(labels), " and ")
		}
		if bf.Version != "" {
			msg += " (" + bf.Version + ")"
		}
		return one("SWTPM-BINARIES", Pass, msg, "")
	}
	// What nova-compute itself would say on this release.
	nmsg := ""
	caps := f.Libvirt.Caps
	hasTPMCaps := caps != nil && caps.TPM != nil
	switch rel := f.Release; {
	case rel < nova.Dalmatian && contains(novaMissing, "swtpm") && contains(novaMissing, "swtpm_setup"):
		nmsg = "vTPM support is configured but the 'swtpm' and 'swtpm_setup' binaries could not be found on PATH."
	case rel >= nova.Dalmatian && rel.ChecksSwtpmBinaries() && !hasTPMCaps && len(novaMissing) > 0:
		nmsg = "vTPM support is configured but some (or all) of the 'swtpm', 'swtpm_setup' and 'swtpm_ioctl' binaries could not be found on PATH."
	}
	st := Warn
	if contains(missing, "swtpm") || contains(missing, "swtpm_setup") {
		st = failIfEnabled(f)
	}
	msg := "missing on PATH: " + strings.Join(where, ", ") + "; libvirt cannot start a vTPM without swtpm and swtpm_setup"
	if nmsg != "" {
		msg = nmsg + " (" + msg + ")"
	} else {
		msg += fmt.Sprintf(" (nova-compute %s does not check this itself)", f.Release)
	}
	return one("SWTPM-BINARIES", st, msg, "install the swtpm and swtpm-tools packages")
}

// missingBinaries: the binaries missing somewhere; where, each with the
// filesystem lacking it when there are two; novaMissing, those
// nova-compute itself fails to find.
func missingBinaries(bf BinaryFacts) (missing, where, novaMissing []string) {
	for _, b := range swtpmBinaries {
		var lacking []string
		for label, paths := range bf.Paths {
			if paths[b] == "" {
				lacking = append(lacking, label)
				if label == "" || label == novaFS {
					novaMissing = append(novaMissing, b)
				}
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
	return missing, where, novaMissing
}

func checkLibvirt(f *Facts) []Check {
	lv := f.Libvirt
	if lv.Err == errNotAsked {
		return one("LIBVIRT", Skip, "not asked: "+f.words().Option(advice.Root)+" audits a mounted host, and this machine's libvirt would describe another host",
			"pass "+f.words().Option(advice.LibvirtURI)+" to ask the audited host's libvirt (e.g. qemu+ssh://root@HOST/system)")
	}
	if lv.Err != nil {
		return one("LIBVIRT", failIfEnabled(f), fmt.Sprintf("libvirt at %s not reachable: %v", lv.URI, lv.Err), "start libvirtd, or pass "+f.words().Option(advice.LibvirtURI))
	}
	rel := f.Release
	minL, minQ := minVersions(rel)
	var low []string
	if lv.LibV < minL {
		low = append(low, fmt.Sprintf("libvirt %s < %s", lv.LibV, minL))
	}
	if lv.QemuV < minQ {
		low = append(low, fmt.Sprintf("QEMU %s < %s", lv.QemuV, minQ))
	}
	if rel == nova.Victoria && lv.LibV < V(5, 6, 0) {
		low = append(low, "vTPM support requires Libvirt version 5.6.0 or greater.")
	}
	if len(low) > 0 {
		return one("LIBVIRT", Fail, fmt.Sprintf("below the minimum of Nova %s: %s", rel, strings.Join(low, "; ")), "upgrade libvirt/QEMU")
	}
	return one("LIBVIRT", Pass, fmt.Sprintf("libvirt %s, QEMU %s at %s (Nova %s needs libvirt >= %s, QEMU >= %s)", lv.LibV, lv.QemuV, lv.URI, rel, minL, minQ), "")
}

// tpmCaps: the TPM models and versions libvirt's domain capabilities
// offer (libvirt < 8.6 names no versions: Nova assumes both); ok is false
// when it reports no <tpm> at all.
func tpmCaps(f *Facts) (models, versions []string, ok bool) {
	caps := f.Libvirt.Caps
	if !f.Libvirt.reachable() || f.Libvirt.CapsErr != nil || caps == nil || caps.TPM == nil {
		return nil, nil, false
	}
	models, _ = caps.TPMEnum("model")
	versions, hasV := caps.TPMEnum("backendVersion")
	if !hasV {
		versions = nova.TPMVersions
	}
	return models, versions, true
}

// checkDomCaps: 2024.2+ Nova asks domcaps (host.py supports_vtpm).
func checkDomCaps(f *Facts) []Check {
	lv := f.Libvirt
	if !lv.reachable() {
		return one("DOMCAPS-TPM", Skip, "no domain capabilities (libvirt not reachable)", "")
	}
	if lv.CapsErr != nil {
		return one("DOMCAPS-TPM", failIfEnabled(f), "domain capabilities: "+lv.CapsErr.Error(), "run as root or a member of libvirt's socket group")
	}
	if lv.Caps.TPM == nil && !f.Release.ChecksSwtpmBinaries() {
		// 2026.2 dropped the PATH fallback: no <tpm> means no vTPM.
		return one("DOMCAPS-TPM", failIfEnabled(f), fmt.Sprintf("vTPM support is configured but it's not supported by libvirt. (libvirt %s reports no <tpm> in domain capabilities)", lv.LibV), "upgrade libvirt to 8.0.0 or later")
	}
	if lv.Caps.TPM == nil {
		return one("DOMCAPS-TPM", Warn, fmt.Sprintf("libvirt %s reports no <tpm> in domain capabilities (libvirt < 8.0): Nova assumes every model and version", lv.LibV), "")
	}
	models, versions, _ := tpmCaps(f)
	backends, _ := lv.Caps.TPMEnum("backendModel")
	if lv.Caps.TPM.Supported != "yes" || !contains(backends, "emulator") {
		st := Warn
		if f.Release >= nova.Dalmatian {
			st = failIfEnabled(f)
		}
		return one("DOMCAPS-TPM", st, "vTPM support is configured but it's not supported by libvirt.", "install swtpm so libvirt offers the emulator backend, then restart libvirtd")
	}
	return one("DOMCAPS-TPM", Pass, fmt.Sprintf("libvirt offers the emulator TPM: models %s, versions %s", strings.Join(models, ", "), strings.Join(versions, ", ")), "")
}

func checkSecureBoot(f *Facts) []Check {
	lv := f.Libvirt
	if !lv.reachable() {
		return one("UEFI-SECURE-BOOT", Skip, "libvirt not reachable", "")
	}
	if lv.Q35Err != nil {
		return one("UEFI-SECURE-BOOT", Warn, "q35 domain capabilities: "+lv.Q35Err.Error(), "")
	}
	if l := f.SecureBootLoaders; len(l) > 0 {
		return one("UEFI-SECURE-BOOT", Pass, "q35 UEFI loaders with Secure Boot: "+strings.Join(l, ", "), "")
	}
	return one("UEFI-SECURE-BOOT", Warn, "no Secure Boot UEFI loader for q35: the Windows-ready profile (os_secure_boot=required) cannot land here", "install OVMF (Debian/Ubuntu: ovmf; RHEL: edk2-ovmf)")
}

func checkKeepState(f *Facts) []Check {
	_, c := keepState(f)
	return []Check{c}
}

// keepState: bug 2118888 and libvirt's temporary undefine, and what it
// means for each guest. Where the installed Nova code is readable it
// decides; the release alone cannot, since only some 2025.1/2025.2 point
// releases carry the fix. kept is nil when libvirt was not reachable.
func keepState(f *Facts) (kept *StateKept, c Check) {
	const id = "KEEP-TPM-STATE"
	libV, rel := f.Libvirt.LibV, f.Release
	if !f.Libvirt.reachable() {
		return nil, Check{ID: id, Status: Skip, Message: "libvirt not reachable"}
	}
	k := func(v TriState, evidence string) *StateKept { return &StateKept{Kept: v, Evidence: evidence} }
	if libV < keepTPMLibvirt {
		return k(No, fmt.Sprintf("libvirt %s < 8.9.0", libV)),
			Check{ID: id, Status: failIfEnabled(f), Message: fmt.Sprintf("libvirt %s < 8.9.0: every hard reboot, stop/start and block copy wipes the vTPM state (BitLocker asks for its recovery key)", libV), Remedy: "upgrade libvirt to 8.9.0 or later"}
	}
	const wiped = "wipes vTPM state on every stop/start and hard reboot (bug 2118888): BitLocker asks for its recovery key"
	if src, path, ok := f.novaFile("nova/virt/libvirt/guest.py"); ok {
		if bytes.Contains(src, []byte(keepTPMMarker)) {
			return k(Yes, fmt.Sprintf("libvirt %s and %s passes %s", libV, path, keepTPMMarker)),
				Check{ID: id, Status: Pass, Message: fmt.Sprintf("libvirt %s >= 8.9.0 and the installed Nova carries the bug 2118888 fix (%s uses %s): vTPM state survives stop/start and hard reboot", libV, path, keepTPMMarker)}
		}
		return k(No, fmt.Sprintf("%s lacks %s", path, keepTPMMarker)),
			Check{ID: id, Status: Warn, Message: fmt.Sprintf("the installed Nova %s %s (%s lacks %s)", rel, wiped, path, keepTPMMarker), Remedy: keepStateRemedy(rel)}
	}
	switch {
	case rel >= nova.Gazpacho:
		return k(Yes, fmt.Sprintf("libvirt %s and Nova %s", libV, rel)),
			Check{ID: id, Status: Pass, Message: fmt.Sprintf("libvirt %s >= 8.9.0 and Nova %s keep vTPM state across stop/start and hard reboot", libV, rel)}
	case rel >= nova.Epoxy:
		return k(Unknown, fmt.Sprintf("Nova %s: depends on the point release; its code is not readable here", rel)),
			Check{ID: id, Status: Warn, Message: fmt.Sprintf("libvirt %s is fine; Nova %s keeps vTPM state only with the bug 2118888 backport in its point release, and no installed Nova code is readable here to tell", libV, rel), Remedy: installedNovaRemedy(f)}
	}
	return k(No, fmt.Sprintf("Nova %s", rel)), Check{ID: id, Status: Warn, Message: fmt.Sprintf("Nova %s %s", rel.Long(), wiped), Remedy: keepStateRemedy(rel)}
}

func keepStateRemedy(rel nova.Release) string {
	if rel >= nova.Epoxy && rel < nova.Gazpacho {
		return "update Nova to a " + rel.String() + " point release with the bug 2118888 backport (or 2026.1); until then escrow BitLocker recovery keys before any stop/start"
	}
	return "upgrade Nova to 2026.1 (or a 2025.1/2025.2 point release with the bug 2118888 backport); until then escrow BitLocker recovery keys before any stop/start"
}

func checkStateDir(f *Facts) []Check {
	sd := f.StateDir
	dir := sd.Path
	if !sd.Exists {
		if len(vtpmDomains(f)) == 0 {
			return one("SWTPM-STATE-DIR", Pass, dir+" does not exist yet (created with the first vTPM guest)", "")
		}
		return one("SWTPM-STATE-DIR", Fail, dir+" is missing but vTPM guests are defined: their TPM state is gone", "restore "+dir+" from the host backup")
	}
	owner, perm := f.LibvirtAccounts.userName(sd.UID), sd.Perm
	switch {
	case perm&0o022 != 0:
		return one("SWTPM-STATE-DIR", Fail, fmt.Sprintf("%s is writable by group or others (%04o): any local user can replace a guest's TPM state", dir, perm), "chmod 0711 "+dir)
	case owner != "root" && owner != f.User:
		return one("SWTPM-STATE-DIR", Fail, fmt.Sprintf("%s belongs to %s, neither root nor the swtpm user %s", dir, owner, f.User), fmt.Sprintf("chown %s:%s %s", f.User, f.Group, dir))
	case owner != f.User && perm&0o001 == 0:
		return one("SWTPM-STATE-DIR", Fail, fmt.Sprintf("%s (%s, %04o) cannot be traversed by the swtpm user %s", dir, owner, perm, f.User), "chmod 0711 "+dir)
	}
	return one("SWTPM-STATE-DIR", Pass, fmt.Sprintf("%s owned by %s, mode %04o; host backups must include it (snapshots never carry TPM state)", dir, owner, perm), "")
}

func checkLocalCA(f *Facts) []Check {
	ca, user, group := f.LocalCA, f.User, f.Group
	dir := ca.Path
	if why := f.Layout.Unread["libvirt"]; why != "" {
		return one("SWTPM-LOCALCA", Skip, dir+" is in libvirtd's filesystem: "+why, "")
	}
	if !ca.Exists {
		return one("SWTPM-LOCALCA", warnIfEnabled(f), dir+" does not exist: swtpm_setup creates it on first use only if its parent is writable by "+user, "install swtpm-tools (it creates the directory for the swtpm user)")
	}
	uid, ok := f.LibvirtAccounts.users[user]
	gid := f.LibvirtAccounts.groups[group]
	perm := ca.Perm
	writable := ok && ((ca.UID == uid && perm&0o200 != 0) || (ca.GID == gid && perm&0o020 != 0) || perm&0o002 != 0)
	if !writable {
		return one("SWTPM-LOCALCA", failIfEnabled(f), fmt.Sprintf("%s (%s:%s %04o) is not writable by the swtpm user %s: swtpm_setup cannot create the TPM's EK certificate and the guest will not start",
			dir, f.LibvirtAccounts.userName(ca.UID), f.LibvirtAccounts.groupName(ca.GID), perm, user), fmt.Sprintf("chown -R %s:%s %s", user, group, dir))
	}
	return one("SWTPM-LOCALCA", Pass, fmt.Sprintf("%s writable by %s", dir, user), "")
}

func checkAppArmor(f *Facts) []Check {
	a := f.AppArmor
	switch {
	case !a.Known:
		return one("APPARMOR", Skip, "AppArmor state is only known on a running host", "")
	case !a.Enabled:
		return one("APPARMOR", Skip, "AppArmor is off", "")
	case a.SwtpmProfile:
		return one("APPARMOR", Pass, "AppArmor is on and swtpm has its profile (usr.bin.swtpm)", "")
	}
	return one("APPARMOR", Warn, "AppArmor is on but /etc/apparmor.d/usr.bin.swtpm is missing: libvirt's virt-aa-helper rules for swtpm state may not apply", "reinstall the swtpm package")
}

func checkGuests(f *Facts) []Check {
	if !f.Libvirt.reachable() {
		return one("VTPM-GUESTS", Skip, "libvirt not reachable", "")
	}
	var out []Check
	if len(f.Guests) > 0 && !f.Enabled {
		out = one("VTPM-GUESTS", Fail, "This host has instances with the vTPM feature enabled, but the host is not correctly configured; enable vTPM support.",
			"set [libvirt] swtpm_enabled = True: nova-compute refuses to start otherwise")
	}
	var bad []string
	for _, g := range f.Guests {
		if g.SecretID == "" {
			bad = append(bad, g.Name+": no <encryption secret=…> (its TPM state is not encrypted; Nova never creates such a guest)")
		}
		if !f.GuestState[g.StateDir] {
			bad = append(bad, g.Name+": state dir "+g.StateDir+" missing (its TPM is blank at next start)")
		}
	}
	switch {
	case len(f.Guests) == 0:
		return append(out, one("VTPM-GUESTS", Pass, "no vTPM guests defined here", "")...)
	case len(bad) > 0:
		return append(out, one("VTPM-GUESTS", Fail, strings.Join(bad, "; "), "restore the state from backup before the guest restarts; BitLocker will otherwise ask for its recovery key")...)
	}
	return append(out, one("VTPM-GUESTS", Pass, fmt.Sprintf("%d vTPM guest(s): state present and encrypted", len(f.Guests)), "")...)
}

// checkHostModeSecrets: host mode keeps a persistent libvirt secret per
// guest (usage vtpm <instance uuid>); a leftover one outlives its guest.
func checkHostModeSecrets(f *Facts) []Check {
	if !f.Libvirt.reachable() {
		return one("HOST-MODE-SECRETS", Skip, "libvirt not reachable", "")
	}
	known := map[string]bool{}
	for _, d := range f.Libvirt.Domains {
		known[d.UUID] = true
	}
	var hostMode, orphans []string
	for _, sec := range f.Libvirt.Secrets {
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
		return one("HOST-MODE-SECRETS", Warn, "persistent vTPM secrets of guests no longer on this host: "+strings.Join(orphans, ", "), "virsh secret-undefine them once the guests are confirmed gone")
	case !f.Release.HasSecretSecurity():
		return one("HOST-MODE-SECRETS", Skip, "host mode arrives in 2026.1", "")
	}
	return one("HOST-MODE-SECRETS", Pass, fmt.Sprintf("%d host-mode guest(s) with their libvirt secret", len(hostMode)), "")
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

// traits: what Nova reports for this host (none when it would say no TPM
// trait for lack of domain capabilities, or with another driver).
func traits(f *Facts) []string {
	if skipTraits(f) || !f.LibvirtDriver {
		return []string{}
	}
	return sortedCopy(ExpectedTraits(f.Release, f.Enabled, f.Libvirt.Caps, modeNames(f.Modes), len(f.SecureBootLoaders) > 0))
}

func skipTraits(f *Facts) bool {
	return f.Release >= nova.Dalmatian && f.Enabled && f.Libvirt.Caps == nil
}

func checkTraits(f *Facts) []Check {
	if skipTraits(f) {
		return one("TRAITS", Skip, "Nova 2024.2+ derives TPM traits from domain capabilities, which libvirt did not give", "")
	}
	t := traits(f)
	tpm := 0
	for _, x := range t {
		if strings.HasPrefix(x, "COMPUTE_SECURITY_TPM_") {
			tpm++
		}
	}
	if tpm == 0 {
		return one("TRAITS", failIfEnabled(f), "Nova reports no TPM trait for this host: no vTPM guest can be scheduled here", "fix the failures above")
	}
	return one("TRAITS", Pass, fmt.Sprintf("Nova %s reports: %s", f.Release, strings.Join(t, " ")), "")
}
