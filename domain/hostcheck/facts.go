package hostcheck

import (
	"os"
	"syscall"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// Facts is everything host check knows about one host: read once by
// gather (all of the I/O: files below the roots, libvirt, swtpm
// --version), then judged by the checks, which are pure functions of it.
// A unit test builds it as a literal and calls derive.
type Facts struct {
	Root        string       // the audited tree, cleaned ("" = the live system)
	Words       advice.Words // how remedies spell options (never nil)
	Layout      Layout       // with the options' paths and roots filled in
	NovaRoot    string       // where nova-compute's files are (Root when the same)
	LibvirtRoot string       // where libvirtd's files are
	Conf        *NovaConf
	Qemu        *QemuConf // nil: absent, libvirt's defaults apply
	Release     nova.Release
	Host        string // the report's host name

	Accounts        accounts // nova-compute's /etc/passwd and /etc/group
	LibvirtAccounts accounts // libvirtd's (the user it runs swtpm as)

	Libvirt  LibvirtFacts
	Binaries BinaryFacts
	// Migration: swtpm's migration feature, libtpms, kolla's secrets volume.
	Migration MigrationFacts
	StateDir  PathFacts // the swtpm state directory (below Root)
	LocalCA   PathFacts // /var/lib/swtpm-localca (below LibvirtRoot)
	// GuestState: each vTPM guest's state directory, whether it exists.
	GuestState map[string]bool
	// GuestNVRAM: each vTPM guest's UEFI variable file, by UUID (Path ""
	// for a BIOS guest), read in libvirtd's filesystem.
	GuestNVRAM map[string]guestNVRAM
	AppArmor   AppArmorFacts
	// NovaCode: files of the installed nova package, by path relative
	// to site-packages; absent when not readable.
	NovaCode   map[string]NovaSource
	Firmware   FirmwareFacts
	SecureBoot TemplateFacts // the NVRAM template the chosen descriptor names
	Now        time.Time     // when gathered (certificate expiry)

	// Derived from the above once, by derive (pure); checks read these
	// instead of recomputing, and no check sets anything.
	Derived
}

// LibvirtFacts is what libvirt answered (read-only calls).
type LibvirtFacts struct {
	URI string
	// Err: not asked (errNotAsked), not connected, or versions refused;
	// nothing else below is then known.
	Err                error
	Connected          bool
	LibV, QemuV        Version
	HypervisorHostname string
	Caps               *DomCaps // default machine
	CapsErr            error
	Q35Caps            *DomCaps
	Q35Err             error
	Domains            []*Domain
	Secrets            []*Secret
}

// reachable: libvirt answered.
func (l LibvirtFacts) reachable() bool { return l.Connected && l.Err == nil }

// BinaryFacts: the swtpm binaries on PATH in each filesystem that needs
// them.
type BinaryFacts struct {
	// Paths: filesystem label ("" = the host's own, the only one when
	// nova-compute and libvirtd share it) → binary → path ("" = missing).
	Paths map[string]map[string]string
	// Unread: why a filesystem that needs them could not be searched.
	Unread  []string
	Version string // swtpm --version's first line, when run
}

// PathFacts is a directory's stat: exists, owner and mode.
type PathFacts struct {
	Path     string
	Exists   bool
	UID, GID int
	Perm     os.FileMode
}

// AppArmorFacts: only known on a running host.
type AppArmorFacts struct {
	Known, Enabled, SwtpmProfile bool
}

// NovaSource is one installed Nova file.
type NovaSource struct {
	Path string // on the audited host
	Src  []byte
}

// FirmwareFacts are the QEMU firmware descriptors each chooser reads:
// Nova's list (nova-compute's filesystem) and libvirt's merge (libvirtd's).
type FirmwareFacts struct {
	ByNova, ByLibvirt []*fwDescriptor
}

// TemplateFacts is the Secure Boot NVRAM template read (or why not).
type TemplateFacts struct {
	Path string
	SB   *uefi.SecureBoot
	Err  error
}

func statPath(root, p string) PathFacts {
	pf := PathFacts{Path: p}
	st, err := statIn(root, p)
	if err != nil {
		return pf
	}
	sys := st.Sys().(*syscall.Stat_t)
	pf.Exists, pf.UID, pf.GID, pf.Perm = true, int(sys.Uid), int(sys.Gid), st.Mode().Perm()
	return pf
}

// words spells the options remedies point to: the caller's, or their
// own names (facts built by hand, as tests do).
func (f *Facts) words() advice.Words { return advice.Or(f.Words) }
