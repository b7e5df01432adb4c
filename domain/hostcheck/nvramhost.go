package hostcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// NVRAMHost is what `host secure-boot` needs of a compute host, read the
// way host check reads it and nothing more: whether its Nova keeps a
// guest's NVRAM (NVRAM-KEPT's verdict), where libvirtd's files are, and
// which libvirt to ask for the domains.
type NVRAMHost struct {
	Host    string
	Release nova.Release
	Layout  Layout
	// LibvirtRoot: the directory a domain's <nvram> path is below ("":
	// this machine's own filesystem). LibvirtUnread says why libvirtd's
	// filesystem cannot be read ("" when it can).
	LibvirtRoot   string
	LibvirtUnread string
	// LibvirtURI: the libvirt to ask; "" when not asked (a mounted tree
	// whose libvirt is not this machine's, and no URI given).
	LibvirtURI string
	// NVRAMKept: does a guest's NVRAM survive stop/start here (Unknown:
	// the installed Nova could not tell); Evidence says from what.
	NVRAMKept TriState
	Evidence  string
}

// GatherNVRAMHost reads nova.conf, the Nova release and the installed
// Nova code under o's layout, as host check does, and decides NVRAM-KEPT.
// Its errors are host check's: an unknown layout, an unreadable
// nova.conf, no installed nova package and no release given.
func GatherNVRAMHost(ctx context.Context, o Options) (*NVRAMHost, error) {
	if o.Root != "" {
		o.Root = filepath.Clean(o.Root)
	}
	if !underRoot(o.Root) {
		if o.Hostname == "" {
			o.Hostname, _ = os.Hostname()
		}
		if o.ContainerRoot == nil {
			o.ContainerRoot = func(name string) (string, error) { return containerRoot(ctx, name) }
		}
	}
	l, err := settleLayout(o)
	if err != nil {
		return nil, err
	}
	novaRoot, libvirtRoot := o.Root, o.Root
	if l.NovaRoot != "" {
		novaRoot = l.NovaRoot
	}
	if l.LibvirtRoot != "" {
		libvirtRoot = l.LibvirtRoot
	}
	conf, err := LoadNovaConf(o.Root, l.NovaConf, l.NovaConfDir)
	if err != nil {
		return nil, err
	}
	f := &Facts{NovaCode: readNovaCode(novaRoot)}
	if f.Release, err = release(o.Release, novaRoot); err != nil {
		return nil, err
	}
	f.Bugs = decideBugs(f.novaFile)
	h := &NVRAMHost{Host: conf.String("DEFAULT", "host", hostname(o)), Release: f.Release, Layout: l,
		LibvirtRoot: libvirtRoot, LibvirtUnread: l.Unread["libvirt"], NVRAMKept: nvramKept(f),
		Evidence: byRelease(f.Release, bugByID(f.Bugs, BugNVRAMRecreated)).Evidence}
	// The libvirt askLibvirt would ask.
	switch {
	case l.LibvirtURI != "":
		h.LibvirtURI = l.LibvirtURI
	case !underRoot(o.Root):
		h.LibvirtURI = conf.String("libvirt", "connection_uri", "qemu:///system")
	}
	return h, ctx.Err()
}

// CertsOf classifies what one NVRAM file enrols, as host check does for
// each vTPM guest: path "" is a guest without NVRAM, err a file that
// could not be read.
func CertsOf(path string, sb *uefi.SecureBoot, err error) (Certs, []string) {
	return certsOf(guestNVRAM{Path: path, SB: sb, Err: err})
}

// ResolveBelow maps p, a domain's <nvram> path on the audited host, to a
// path on this machine with every symlink resolved inside root, as host
// check reads it (root "": the live system, where p means itself). A
// path that is not clean and absolute is refused.
func ResolveBelow(root, p string) (string, error) {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.Contains(p, "/../") {
		return "", fmt.Errorf("%q is not a clean absolute path", p)
	}
	return resolve(root, p)
}

// DomainState is a domain's state as libvirt names it (virsh's words).
type DomainState string

// The states libvirt reports; only DomainShutOff has no QEMU process.
const (
	DomainNoState      DomainState = "no state"
	DomainRunning      DomainState = "running"
	DomainBlocked      DomainState = "blocked"
	DomainPaused       DomainState = "paused"
	DomainShuttingDown DomainState = "in shutdown"
	DomainShutOff      DomainState = "shut off"
	DomainCrashed      DomainState = "crashed"
	DomainPMSuspended  DomainState = "pmsuspended"
)
