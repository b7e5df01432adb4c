package hostcheck

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/vtpmctl/vtpmctl/nova"
)

// Options are `host check`'s inputs. Every path is read below Root.
type Options struct {
	Root        string
	NovaConf    []string // default /etc/nova/nova.conf (+ nova-compute.conf if present)
	NovaConfDir string
	QemuConf    string // default /etc/libvirt/qemu.conf
	StateDir    string // default /var/lib/libvirt/swtpm (Nova's VTPM_DIR)
	LibvirtURI  string // default from [libvirt] connection_uri, else qemu:///system
	Release     nova.Release
	// Hypervisor, when set, answers instead of a live libvirt connection.
	Hypervisor Hypervisor
	// RunVersion runs `swtpm --version` on the live system; nil under a
	// --root (a mounted image's binaries are not run).
	RunVersion func(bin string) (string, error)
	Hostname   string
	// Layout: a deployment's layout name, or "auto"/"" to detect it.
	Layout string
	// NovaRoot, LibvirtRoot: directories holding the filesystems
	// nova-compute and libvirtd run in (a container's), overriding the
	// layout's; ContainerRoot finds a running container's (docker/podman).
	NovaRoot, LibvirtRoot string
	ContainerRoot         func(name string) (string, error)
}

// state is what the checks share while running.
type state struct {
	o             Options
	r             *Report
	conf          *NovaConf
	qemu          *QemuConf
	acc           accounts
	rel           nova.Release
	enabled       bool
	libvirtDriver bool
	virtType      string
	user          string
	group         string
	modes         []string
	hv            Hypervisor
	hvErr         error
	libV          Version
	qemuV         Version
	caps          *DomCaps
	capsErr       error
	domains       []*Domain
	secrets       []*Secret
	layout        Layout
	novaRoot      string   // where nova-compute's files are ("" = the host's)
	libvirtRoot   string   // where libvirtd's files are
	lacc          accounts // libvirtd's accounts (the swtpm user it runs swtpm as)
}

// Run performs every check. It returns an error only for input the checks
// cannot start from: a malformed or missing config file, an unknown
// release.
func Run(o Options) (*Report, error) {
	if o.Root != "" {
		o.Root = filepath.Clean(o.Root)
	}
	s := &state{o: o, r: &Report{Schema: ReportSchema, Traits: []string{}, VTPMGuests: []Guest{}}}
	l, err := ResolveLayout(o.Layout, o.Root, o.ContainerRoot)
	if err != nil {
		return nil, err
	}
	if o.NovaRoot != "" {
		l.NovaRoot = filepath.Clean(o.NovaRoot)
		delete(l.Unread, "nova")
	}
	if o.LibvirtRoot != "" {
		l.LibvirtRoot = filepath.Clean(o.LibvirtRoot)
		delete(l.Unread, "libvirt")
	}
	if len(o.NovaConf) == 0 && o.NovaConfDir == "" {
		o.NovaConf, o.NovaConfDir = l.NovaConf, l.NovaConfDir
		if len(o.NovaConf) == 0 {
			o.NovaConf = []string{"/etc/nova/nova.conf"}
			if _, err := statIn(o.Root, "/etc/nova/nova-compute.conf"); err == nil {
				o.NovaConf = append(o.NovaConf, "/etc/nova/nova-compute.conf")
			}
		}
	}
	if o.QemuConf == "" {
		o.QemuConf = l.QemuConf
	}
	if o.StateDir == "" {
		o.StateDir = l.StateDir
	}
	if o.LibvirtURI == "" {
		o.LibvirtURI = l.LibvirtURI
	}
	l.NovaConf, l.NovaConfDir, l.QemuConf, l.StateDir, l.LibvirtURI = o.NovaConf, o.NovaConfDir, o.QemuConf, o.StateDir, o.LibvirtURI
	s.layout, s.novaRoot, s.libvirtRoot = l, o.Root, o.Root
	if l.NovaRoot != "" {
		s.novaRoot = l.NovaRoot
	}
	if l.LibvirtRoot != "" {
		s.libvirtRoot = l.LibvirtRoot
	}
	s.r.Layout = &s.layout
	if s.conf, err = LoadNovaConf(o.Root, o.NovaConf, o.NovaConfDir); err != nil {
		return nil, err
	}
	if _, err := statIn(o.Root, o.QemuConf); err == nil { // absent: libvirt's defaults apply
		if s.qemu, err = LoadQemuConf(o.Root, o.QemuConf); err != nil {
			return nil, err
		}
	}
	ev := nova.ReleaseEvidence{Flag: o.Release}
	if o.Release == nova.ReleaseUnknown {
		if ev.Installed, err = DetectNovaRelease(s.novaRoot); err != nil {
			return nil, err
		}
	}
	res, err := nova.ResolveRelease(ev)
	if err != nil {
		return nil, err
	}
	s.rel = res.Release
	s.o = o
	s.r.NovaRelease = s.rel.String()
	if underRoot(o.Root) {
		// the mounted host's name, never the auditing machine's
		o.Hostname = "unknown (no host in nova.conf, no /etc/hostname below the root)"
		if b, err := readFile(o.Root, "/etc/hostname"); err == nil && firstLine(string(b)) != "" {
			o.Hostname = firstLine(string(b))
		}
		s.o.Hostname = o.Hostname
	}
	s.r.Host = s.conf.String("DEFAULT", "host", o.Hostname)
	s.acc, s.lacc = loadAccounts(s.novaRoot), loadAccounts(s.libvirtRoot)
	s.connect()
	if s.hv != nil {
		defer s.hv.Close()
	}

	for _, check := range []func(){
		s.checkConfFiles, s.checkEnabled, s.checkDriver, s.checkVirtType, s.checkAccounts, s.checkQemuConfMatch,
		s.checkKeyManager, s.checkSecretSecurity, s.checkBinaries, s.checkLibvirt, s.checkDomCaps,
		s.checkSecureBoot, s.checkKeepState, s.checkFirmware, s.checkStateDir, s.checkLocalCA, s.checkAppArmor,
		s.checkGuests, s.checkHostModeSecrets, s.checkResumeOnBoot, s.checkTraits,
	} {
		check()
	}
	if k := s.r.Facts.StateKept; k != nil {
		for i := range s.r.VTPMGuests {
			s.r.VTPMGuests[i].StateKept = k.Kept
		}
	}
	s.r.Finish()
	return s.r, nil
}

func (s *state) add(id string, st Status, msg, remedy string) {
	s.r.add(Check{ID: id, Status: st, Message: msg, Remedy: remedy})
}

var novaPkg = regexp.MustCompile(`/nova-(\d+)\.[^/]*\.(egg|dist)-info$`)

// DetectNovaRelease reads the installed nova Python package's version.
func DetectNovaRelease(root string) (nova.Release, error) {
	found := novaMetadata(root)
	for _, f := range found {
		if m := novaPkg.FindStringSubmatch(f); m != nil {
			major, _ := strconv.Atoi(m[1])
			if r, err := nova.ParseRelease(strconv.Itoa(major)); err == nil {
				return r, nil
			}
			return nova.ReleaseUnknown, fmt.Errorf("nova %d (%s) is newer than vtpmctl knows; pass --nova-release", major, f)
		}
	}
	return nova.ReleaseUnknown, fmt.Errorf("no installed nova package found below %q: pass --nova-release (e.g. zed, 2024.2)", rootName(root))
}

func underRoot(root string) bool { return root != "" && root != "/" }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func rootName(root string) string {
	if root == "" {
		return "/"
	}
	return root
}

// lookPath finds an executable on PATH below the root (a container's
// filesystem is searched along the standard PATH too).
func lookPath(root, name string) string {
	path := os.Getenv("PATH")
	if underRoot(root) {
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := statIn(root, p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// firstLine of a command's output, for versions.
func firstLine(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	if sc.Scan() {
		return strings.TrimSpace(sc.Text())
	}
	return ""
}

func sortedCopy(l []string) []string {
	out := append([]string{}, l...)
	sort.Strings(out)
	return out
}
