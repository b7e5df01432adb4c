package hostcheck

import (
	"fmt"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// clock is gather's "now" (Facts.Now, for certificate expiry); tests set it.
var clock = time.Now

// The second half of BitLocker's trust: PCR 7 measures the Secure Boot
// variables, so a guest's NVRAM must survive its host's Nova and carry
// certificates Microsoft still signs with.

// ms2023 are the certificates that replace the 2011 set.
var ms2023 = []struct{ db, cn string }{
	{"KEK", "Microsoft Corporation KEK 2K CA 2023"},
	{"db", "Windows UEFI CA 2023"},
	{"db", "Microsoft UEFI CA 2023"},
	{"db", "Microsoft Option ROM UEFI CA 2023"},
}

var ms2011 = []string{"Microsoft Corporation KEK CA 2011", "Microsoft Corporation UEFI CA 2011", "Microsoft Windows Production PCA 2011"}

// checkSecureBootCerts: the NVRAM template a new Secure Boot guest starts
// from (f.Firmware, chosen by Nova or libvirt: secureBootChoice), as read
// in libvirtd's filesystem, which copies it.
func checkSecureBootCerts(f *Facts) []Check {
	const id = "SECURE-BOOT-CERTS"
	c := f.FirmwareChoice
	if c.Error != "" {
		return one(id, Fail, c.Error, "remove or fix the descriptor, or update Nova to a release with the bug 2122288 fix (30.3.0, 31.3.0, 32.2.0, 33.0.0)")
	}
	if c.Descriptor == nil {
		return one(id, Skip, fmt.Sprintf("no Secure Boot firmware descriptor for x86_64 %s in %s", f.Machine, strings.Join(firmwareDirs, ", ")), "install OVMF (Debian/Ubuntu: ovmf; RHEL: edk2-ovmf) for Windows guests with Secure Boot")
	}
	where := fmt.Sprintf("%s chose %s → %s", c.By, c.Descriptor.File, c.Template)
	if err := safeHostPath(c.Template); err != nil {
		return one(id, Warn, where+": "+err.Error(), "fix the descriptor "+c.Descriptor.File)
	}
	sb, err := f.SecureBoot.SB, f.SecureBoot.Err
	if err == nil && sb == nil {
		err = fmt.Errorf("%s: not read", c.Template)
	}
	if err != nil {
		return one(id, Warn, where+": "+err.Error(), "reinstall the firmware package")
	}
	if sb.PK == nil || len(sb.PK.Certificates) == 0 {
		return one(id, Warn, where+": the template enrols no keys (no PK): Secure Boot guests start in setup mode and verify nothing, and BitLocker's PCR 7 binding is not used",
			"install a firmware package whose Secure Boot descriptor has enrolled-keys (Debian: ovmf's OVMF_VARS_4M.ms.fd), or order it first in /etc/qemu/firmware")
	}
	st, msg, remedy := certStatus(where, sb, f.Now, f.words().Command(advice.SecureBootUpdate))
	return one(id, st, msg, remedy)
}

// certStatus: Warn, not Fail, when only the 2011 set is there: UEFI does
// not check expiry, so guests keep booting; but a guest made from this
// template cannot take boot managers and db/dbx updates signed only by the
// 2023 keys, and enrolling them changes PCR 7. The remedy's update (its
// caller's words) is how existing guests get them: Windows cannot add the
// KEK itself (certremedy.go).
func certStatus(where string, sb *uefi.SecureBoot, now time.Time, update string) (Status, string, string) {
	pk := sb.PK.Certificates[0]
	facts := fmt.Sprintf("PK %q (owner %s); KEK %s; db %s; dbx %d hashes", pk.Subject, pk.Owner, names(sb.KEK), names(sb.DB), dbxCount(sb.DBX))
	var missing []string
	for _, m := range ms2023 {
		d := sb.KEK
		if m.db == "db" {
			d = sb.DB
		}
		if !d.Has(m.cn) {
			missing = append(missing, m.db+" "+m.cn)
		}
	}
	var old []string
	for _, d := range []*uefi.SignatureDB{sb.KEK, sb.DB} {
		if d == nil {
			continue
		}
		for _, c := range d.Certificates {
			if contains(ms2011, c.Subject) {
				verb := "expires"
				if now.After(c.NotAfter) {
					verb = "expired"
				}
				old = append(old, fmt.Sprintf("%s %s %s", c.Subject, verb, c.NotAfter.Format("2006-01-02")))
			}
		}
	}
	msg := where + ": " + facts
	if len(missing) == 0 {
		return Pass, msg + ": the 2023 Microsoft certificates are enrolled", ""
	}
	msg += "; missing the 2023 certificates: " + strings.Join(missing, ", ")
	if len(old) > 0 {
		msg += " (" + strings.Join(old, "; ") + ")"
	}
	msg += ": new Windows guests boot (UEFI ignores expiry) but cannot take boot managers or db/dbx updates signed only by the 2023 keys; enrolling them later changes PCR 7 (BitLocker recovery unless suspended first)"
	return Warn, msg, "update the firmware package to one whose template enrols the 2023 KEK and db certificates (Debian: ovmf 2026.08, forky; bookworm's and trixie's enrol the 2011 set only), " +
		"or enrol them into the template (virt-fw-vars --add-kek/--add-db); existing guests keep their own NVRAM where Nova keeps it, and Windows cannot add the KEK to it: " +
		"add the certificates to each guest's NVRAM on this host, guest stopped and BitLocker suspended (" + update + ")"
}

func names(d *uefi.SignatureDB) string {
	if d == nil || len(d.Certificates) == 0 {
		return "(empty)"
	}
	var l []string
	for _, c := range d.Certificates {
		l = append(l, fmt.Sprintf("%q", c.Subject))
	}
	return strings.Join(l, ", ")
}

func dbxCount(d *uefi.SignatureDB) int {
	if d == nil {
		return 0
	}
	return d.SHA256
}

func bugCheck(f *Facts, id string, e BugExposure, pass, carried, unknownRel string) []Check {
	fixes := "update Nova to " + strings.Join(e.Bug.Fixed, ", ") + " or later in its series"
	var c Check
	switch {
	case e.Known && e.Carried:
		c = Check{ID: id, Status: Warn, Message: fmt.Sprintf("%s%s: %s (%s): %s", carriesBug, e.Bug.ID, carried, e.Evidence, e.Bug.Effect), Remedy: fixes}
	case e.Known:
		c = Check{ID: id, Status: Pass, Message: fmt.Sprintf("%s (%s)", pass, e.Evidence)}
	default:
		c = Check{ID: id, Status: Warn, Message: fmt.Sprintf("%s (%s)", unknownRel, e.Evidence), Remedy: installedNovaRemedy(f) + "; " + fixes}
	}
	// The verdict, typed: the fleet reads it back (Report.ReportedBug).
	c.Bug = &BugVerdict{ID: e.Bug.ID, Carried: triOf(e.Carried, e.Known)}
	return []Check{c}
}

// checkNvramKept: bug 2131730/1633447, decided from the installed
// guest.py as KEEP-TPM-STATE is; the release alone cannot tell for 2025.1
// and 2025.2, whose point releases differ.
func checkNvramKept(f *Facts) []Check {
	return bugCheck(f, "NVRAM-KEPT", byRelease(f.Release, bugByID(f.Bugs, BugNVRAMRecreated)),
		"UEFI NVRAM survives stop/start, hard reboot and live migration (not cold migration or shelve)",
		"every stop/start and hard reboot recreates a UEFI guest's NVRAM from the template",
		fmt.Sprintf("Nova %s keeps UEFI NVRAM only from 31.3.0/32.2.0 on, and no installed Nova code is readable here to tell", f.Release))
}

// byRelease decides a bug fixed in 31.3.0/32.2.0/33.0.0 from the release
// when no installed code was readable: only releases whose every version
// is fixed (2026.1+) or unfixed (before 2025.1) can tell.
func byRelease(rel nova.Release, e BugExposure) BugExposure {
	if !e.Known && (rel >= nova.Gazpacho || rel < nova.Epoxy) {
		e.Known, e.Carried = true, rel < nova.Epoxy
		e.Evidence = "Nova " + rel.String() + ", its code not readable here"
	}
	return e
}

// checkResizeRevert: bug 2125030, decided from the installed driver.py.
func checkResizeRevert(f *Facts) []Check {
	return bugCheck(f, ResizeRevertCheck, byRelease(f.Release, bugByID(f.Bugs, BugResizeRevert)),
		"resize revert keeps a vTPM guest's secret (deleted only with the instance)",
		"resize revert of a vTPM guest ends in ERROR, \"Refusing to create an emulated TPM with no secret\", "+resizeRevertCondition,
		fmt.Sprintf("Nova %s reverts vTPM moves to another host (non-shared instance storage) safely only from 31.3.0/32.2.0 on, and no installed Nova code is readable here to tell", f.Release))
}

// checkKnownBugs lists every known vTPM/UEFI bug the installed code has.
func checkKnownBugs(f *Facts) []Check {
	var carried, unknown, fixed []string
	for _, e := range f.Bugs {
		switch {
		case e.Known && e.Carried:
			carried = append(carried, fmt.Sprintf("%s (%s; fixed in %s)", e.Bug.ID, e.Bug.Title, strings.Join(e.Bug.Fixed, ", ")))
		case e.Known:
			fixed = append(fixed, string(e.Bug.ID))
		default:
			unknown = append(unknown, string(e.Bug.ID))
		}
	}
	switch {
	case len(fixed) == 0 && len(carried) == 0:
		return one("KNOWN-BUGS", Skip, "no installed Nova code readable here: bugs "+strings.Join(unknown, ", ")+" undecided", installedNovaRemedy(f))
	case len(carried) > 0:
		return one("KNOWN-BUGS", Warn, fmt.Sprintf("the installed Nova carries %d known vTPM/UEFI bug(s): %s", len(carried), strings.Join(carried, "; ")), "update Nova to a point release with the fixes (see each bug's versions)")
	}
	msg := "the installed Nova has the fixes for bugs " + strings.Join(fixed, ", ")
	if len(unknown) > 0 {
		msg += "; undecided: " + strings.Join(unknown, ", ")
	}
	return one("KNOWN-BUGS", Pass, msg, "")
}

// installedNovaRemedy: a verdict needs the installed Nova code, which
// only the host (or its tree mounted) has.
func installedNovaRemedy(f *Facts) string {
	return "run host check where the nova package is installed (or " + f.words().Option(advice.Root) + " at that host's tree)"
}
