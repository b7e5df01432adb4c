package hostcheck

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// KnownBug is a Nova bug that changes a vTPM or UEFI guest's fate, and how
// the installed Nova code shows whether this host carries it. Each marker
// was read from openstack/nova's history: the fixing commit's diff, checked
// against the tags before and after it.
type KnownBug struct {
	ID     BugID
	Title  string   // what goes wrong
	Fixed  []string // the first nova version of each series with the fix
	Effect string   // what follows for a Windows guest with BitLocker (or any UEFI guest)
	File   string   // the file the marker is in, relative to site-packages
	// carried decides from that file's text; evidence names the marker.
	carried func(src []byte) (carried bool, evidence string, known bool)
}

// BugID names a known bug by its Launchpad number(s); its JSON is the
// number, as reports and the upgrade check have always written it.
type BugID string

// The known bugs, by the IDs readers decide on.
const (
	BugTPMStateWiped   BugID = "2118888"
	BugNVRAMRecreated  BugID = "2131730/1633447"
	BugResizeRevert    BugID = "2125030"
	BugFirmwareNoNVRAM BugID = "2122288"
)

// LookupBug is the known bug id names; nil when the table has none.
func LookupBug(id BugID) *KnownBug {
	for i := range KnownBugs {
		if KnownBugs[i].ID == id {
			return &KnownBugs[i]
		}
	}
	return nil
}

// novaFile reads one installed Nova file (relative to site-packages).
type novaFile func(rel string) (b []byte, path string, ok bool)

// KnownBugs is the table `host check` decides on the installed code.
var KnownBugs = []KnownBug{
	{
		ID: BugTPMStateWiped, Title: "vTPM state wiped on every stop/start and hard reboot (libvirt >= 8.9 undefines the domain with its TPM)",
		Fixed:  []string{"31.3.0", "32.2.0", "33.0.0"},
		Effect: "the guest's TPM comes back empty: BitLocker asks for its recovery key, keys sealed to the TPM are gone",
		File:   "nova/virt/libvirt/guest.py",
		// fix 2399a296e3 "Preserve vTPM state between power off and power on"
		// adds the flag to Guest.delete_configuration.
		carried: markerFix(keepTPMMarker),
	},
	{
		ID: BugNVRAMRecreated, Title: "UEFI NVRAM recreated from the template on every stop/start and hard reboot",
		Fixed:  []string{"31.3.0", "32.2.0", "33.0.0"},
		Effect: "db/dbx/KEK updates the guest applied are lost, PCR 7 changes: BitLocker asks for its recovery key (cold migration and shelve drop NVRAM even when fixed)",
		File:   "nova/virt/libvirt/guest.py",
		// fix 35b1945522 "Preserve UEFI NVRAM variable store": before it,
		// delete_configuration always passed VIR_DOMAIN_UNDEFINE_NVRAM.
		carried: markerFix("VIR_DOMAIN_UNDEFINE_KEEP_NVRAM"),
	},
	{
		ID: BugResizeRevert, Title: "resize revert of a vTPM guest ends in ERROR: \"Refusing to create an emulated TPM with no secret\" (" + resizeRevertCondition + ")",
		Fixed:  []string{"31.3.0", "32.2.0", "33.0.0"},
		Effect: "the revert deletes the guest's vTPM secret from the key manager: the guest ends in ERROR and its TPM state can no longer be opened (BitLocker recovery key needed, TPM-sealed keys lost)",
		File:   "nova/virt/libvirt/driver.py",
		// fix 787d2a1300 "Move cleanup of vTPM secret from driver to compute"
		// removes this call from LibvirtDriver._cleanup; every release from
		// 22.0.0 to 31.2.0 and 32.1.0 has it.
		carried: func(src []byte) (bool, string, bool) {
			if resizeRevertUnfixed.Match(src) {
				return true, "LibvirtDriver._cleanup deletes the vTPM secret when it removes the instance's disks (`if cleanup_instance_disks: crypto.delete_vtpm_secret`)", true
			}
			if bytes.Contains(src, []byte("class LibvirtDriver")) {
				return false, "LibvirtDriver._cleanup no longer deletes the vTPM secret", true
			}
			return false, "not Nova's libvirt driver", false
		},
	},
	{
		ID: BugFirmwareNoNVRAM, Title: "a firmware descriptor without nvram-template (stateless or memory-device firmware) makes every UEFI guest fail to spawn (KeyError)",
		Fixed:  []string{"30.3.0", "31.3.0", "32.2.0", "33.0.0"},
		Effect: "no UEFI guest (so no Windows 11 guest) can be created or hard-rebooted once such a descriptor is installed (newer edk2 packages ship them)",
		File:   "nova/virt/libvirt/host.py",
		// fix d2188b9e6b "libvirt: Skip unsupported firmware types" wraps
		// Host.get_loader's descriptor reading in try/except KeyError; 33.0.0
		// dropped get_loader for libvirt's own firmware selection.
		carried: func(src []byte) (bool, string, bool) {
			i := bytes.Index(src, []byte("def get_loader("))
			if i < 0 {
				return false, "Host.get_loader is gone: libvirt selects the firmware", bytes.Contains(src, []byte("class Host"))
			}
			body := src[i:]
			if j := bytes.Index(body, []byte("UEFINotSupported")); j >= 0 {
				body = body[:j]
			}
			if bytes.Contains(body, []byte("except KeyError")) {
				return false, "Host.get_loader skips descriptors it cannot read (except KeyError)", true
			}
			return true, "Host.get_loader reads mapping.nvram-template of every descriptor without a KeyError guard", true
		},
	},
}

// resizeRevertCondition: when bug 2125030 strikes. The destination's
// ComputeManager.revert_resize destroys with destroy_disks = not
// _is_instance_storage_shared(host=source), and only cleanup_instance_disks
// reaches crypto.delete_vtpm_secret: a move to another host without shared
// instance storage, whether a resize or a same-flavor cold migration. A
// same-host revert finds its own test file (shared) and keeps the secret.
const resizeRevertCondition = "when it reverts a move to another host with non-shared instance storage, a resize or a plain cold migration; a same-host resize revert keeps the secret"

var resizeRevertUnfixed = regexp.MustCompile(`if cleanup_instance_disks:\s+crypto\.delete_vtpm_secret\(context, instance\)`)

// markerFix: the fix added marker to the file.
func markerFix(marker string) func([]byte) (bool, string, bool) {
	return func(src []byte) (bool, string, bool) {
		if bytes.Contains(src, []byte(marker)) {
			return false, "uses " + marker, true
		}
		return true, "lacks " + marker, true
	}
}

// BugExposure is one known bug as decided on this host.
type BugExposure struct {
	Bug      *KnownBug
	Carried  bool
	Known    bool // false: the installed code was not readable or not recognised
	Evidence string
}

// decideBugs decides every known bug from the installed code.
func decideBugs(read novaFile) []BugExposure {
	out := make([]BugExposure, 0, len(KnownBugs))
	for i := range KnownBugs {
		kb := &KnownBugs[i]
		e := BugExposure{Bug: kb}
		if src, path, ok := read(kb.File); ok {
			var ev string
			e.Carried, ev, e.Known = kb.carried(src)
			e.Evidence = fmt.Sprintf("%s %s", path, ev)
		} else {
			e.Evidence = kb.File + " not readable"
		}
		out = append(out, e)
	}
	return out
}

// ResizeRevertCheck is the check that decides bug 2125030.
const ResizeRevertCheck = "RESIZE-REVERT"

// carriesBug starts the message of a bug check whose code carries it.
const carriesBug = "the installed Nova carries bug "

// BugVerdict is what a bug check decided (bugCheck): which known bug,
// and whether the installed Nova carries it (Unknown: it could not tell).
// Reports are read back from files, so the check carries it typed.
type BugVerdict struct {
	ID      BugID    `json:"id"`
	Carried TriState `json:"carried"`
}

// ReportedBug is what a host check report decided of one known bug (the
// fleet reads bug 2125030 from its RESIZE-REVERT check): carried or not,
// known false when the check could not decide (no code readable on
// 2025.1/2025.2) or the report has no check with that verdict (a report
// from before the check, or before checks carried their verdict).
func (r *Report) ReportedBug(id BugID) (carried, known bool) {
	for _, c := range r.Checks {
		if c.Bug == nil || c.Bug.ID != id {
			continue
		}
		switch c.Bug.Carried {
		case Yes:
			return true, true
		case No:
			return false, true
		}
		return false, false
	}
	return false, false
}

// bugByID returns the exposure of one bug by ID.
func bugByID(l []BugExposure, id BugID) BugExposure {
	for _, e := range l {
		if e.Bug.ID == id {
			return e
		}
	}
	return BugExposure{}
}

// BugFix says whether a release's nova packages carry a known bug's fix.
type BugFix string

const (
	FixAll     BugFix = "fixed"         // every version of the release
	FixPoint   BugFix = "point_release" // only from a point release on: older packages carry the bug
	FixNone    BugFix = "not_fixed"
	FixUnknown BugFix = "unknown" // the release is not known
)

// FixIn says whether rel's versions have the fix, and the first version
// with it that answers for rel: rel's own point release, or the version
// that brought the fix to the series rel descends from ("" when none).
// The fix is in every release from the oldest series whose fixed version
// is its first (X.0.0: it landed on master then); before that, only in
// the series a backport names.
func (b *KnownBug) FixIn(rel nova.Release) (BugFix, string) {
	if rel == nova.ReleaseUnknown {
		return FixUnknown, ""
	}
	master, masterV := nova.ReleaseUnknown, ""
	for _, v := range b.Fixed {
		r, first, ok := seriesOf(v)
		if !ok {
			continue
		}
		if r == rel {
			if first {
				return FixAll, v
			}
			return FixPoint, v
		}
		if first && (master == nova.ReleaseUnknown || r < master) {
			master, masterV = r, v
		}
	}
	if master != nova.ReleaseUnknown && rel > master {
		return FixAll, masterV
	}
	return FixNone, ""
}

// seriesOf: the release of a nova version ("33.0.0" → 2026.1) and
// whether it is the series' first.
func seriesOf(version string) (nova.Release, bool, bool) {
	major, rest, _ := strings.Cut(version, ".")
	r, err := nova.ParseRelease(major)
	return r, rest == "0.0", err == nil
}
