package hostcheck

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/nova"
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
	// RunCapabilities runs `swtpm socket --print-capabilities` (nil:
	// not asked, as under --root).
	RunCapabilities func(bin string) (string, error)
	Hostname        string
	// Words spell the options a remedy points to (the CLI's flags);
	// nil names them as themselves.
	Words advice.Words
	// Layout: a deployment's layout name, or "auto"/"" to detect it.
	Layout string
	// NovaRoot, LibvirtRoot: directories holding the filesystems
	// nova-compute and libvirtd run in (a container's), overriding the
	// layout's; ContainerRoot finds a running container's (docker/podman).
	NovaRoot, LibvirtRoot string
	ContainerRoot         func(name string) (string, error)
}

// run is Run ending with ctx's error once ctx is done (RunOnHost: the
// CLI's context, cancelled on SIGINT and SIGTERM).
func run(ctx context.Context, o Options) (*Report, error) {
	f, err := gatherContext(ctx, o)
	if err != nil {
		return nil, err
	}
	return evaluate(f), nil
}

// RunOnHost is Run on this machine: the host name is this machine's, and
// when o audits the live system (no Root) swtpm --version and docker or
// podman inspect run under ctx, unless o brings its own. The firmware
// files are read under ctx in any case: once it is done RunOnHost ends
// with its error.
func RunOnHost(ctx context.Context, o Options) (*Report, error) {
	if o.Hostname == "" {
		o.Hostname, _ = os.Hostname()
	}
	if !underRoot(o.Root) {
		if o.RunVersion == nil {
			o.RunVersion = func(bin string) (string, error) { return runBounded(ctx, true, bin, "--version") }
		}
		if o.RunCapabilities == nil {
			o.RunCapabilities = func(bin string) (string, error) { return runBounded(ctx, false, bin, "socket", "--print-capabilities") }
		}
		if o.ContainerRoot == nil {
			o.ContainerRoot = func(name string) (string, error) { return containerRoot(ctx, name) }
		}
	}
	return run(ctx, o)
}

// runTimeout bounds each program host check runs (a variable for tests).
var runTimeout = 10 * time.Second

// runBounded runs a program of the audited host's: a wedged swtpm must
// not hang host check (10 s), and its answer is read up to 64 KiB
// (stdout, and stderr too when combined: --version prints there).
func runBounded(ctx context.Context, combined bool, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out bytes.Buffer
	w := &limitedWriter{w: &out, n: 64 << 10}
	cmd.Stdout = w
	if combined {
		cmd.Stderr = w
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("%s %s: no answer within %s", bin, strings.Join(args, " "), runTimeout)
	}
	return out.String(), err
}

// limitedWriter keeps the first n bytes and drops the rest (the program
// is not blocked on a full pipe).
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// check is one pure check: its findings from the facts alone, so the list
// below may be run in any order (TestChecksOrderIndependent); its order is
// only the order of the report.
type check struct {
	name string
	run  func(*Facts) []Check
}

var checks = []check{
	{"conf-files", checkConfFiles}, {"enabled", checkEnabled}, {"driver", checkDriver}, {"virt-type", checkVirtType},
	{"accounts", checkAccounts}, {"qemu-conf-match", checkQemuConfMatch}, {"key-manager", checkKeyManager},
	{"secret-security", checkSecretSecurity}, {"binaries", checkBinaries}, {"libvirt", checkLibvirt}, {"domcaps", checkDomCaps},
	{"secure-boot", checkSecureBoot}, {"keep-state", checkKeepState}, {"secure-boot-certs", checkSecureBootCerts},
	{"nvram-kept", checkNvramKept}, {"resize-revert", checkResizeRevert}, {"known-bugs", checkKnownBugs},
	{"state-dir", checkStateDir}, {"local-ca", checkLocalCA}, {"apparmor", checkAppArmor}, {"guests", checkGuests}, {"bitlocker-risk", checkBitLocker},
	{"host-mode-secrets", checkHostModeSecrets}, {"resume-on-boot", checkResumeOnBoot}, {"traits", checkTraits},
	{"migration", checkMigration},
}

// evaluate judges the facts: the report of every check. Pure.
func evaluate(f *Facts) *Report {
	l := f.Layout
	r := &Report{Schema: ReportSchema, Host: f.Host, NovaRelease: f.Release, Traits: traits(f),
		VTPMGuests: append([]Guest{}, f.Guests...), Facts: hostInfo(f), Layout: &l}
	for _, c := range checks {
		r.Checks = append(r.Checks, c.run(f)...)
	}
	if k := r.Facts.StateKept; k != nil {
		for i := range r.VTPMGuests {
			r.VTPMGuests[i].StateKept = k.Kept
		}
	}
	for i := range r.VTPMGuests {
		ready, why := guestReadiness(f, r.VTPMGuests[i])
		r.VTPMGuests[i].MigrationReady, r.VTPMGuests[i].MigrationReasons = &ready, why
	}
	for i, b := range guestsBitLocker(f) {
		r.VTPMGuests[i].BitLocker = b
	}
	r.Finish()
	return r
}

// hostInfo is what the report's readers learn of the host.
func hostInfo(f *Facts) HostInfo {
	h := HostInfo{SwtpmVersion: f.Binaries.Version, SecureBoot: len(f.SecureBootLoaders) > 0, StateDir: f.StateDir.Path}
	if lv := f.Libvirt; lv.reachable() {
		h.HypervisorHostname, h.LibvirtVersion, h.QEMUVersion = lv.HypervisorHostname, lv.LibV.String(), lv.QemuV.String()
	}
	h.TPMModels, h.TPMVersions, _ = tpmCaps(f)
	h.StateKept, _ = keepState(f)
	m := f.Migration
	h.SwtpmFeatures, h.SwtpmMigration, h.Libtpms, h.SecretsKept = m.SwtpmFeatures, m.swtpmMigration(), m.Libtpms, m.SecretsKept
	h.Cell, h.CellHosts = cellOf(f.Conf)
	return h
}

// ReleaseNotFoundError: the installed nova package cannot tell the
// release, and the caller has to be told it (each command by its own
// flag). Major is 0 when no package was found below Root; else the
// package's major version, newer than vtpmctl knows.
type ReleaseNotFoundError struct {
	Root    string // "/" for the live system
	Major   int
	Package string // the package's metadata directory on the host
}

func (e *ReleaseNotFoundError) Error() string {
	if e.Major > 0 {
		return fmt.Sprintf("nova %d (%s) is newer than vtpmctl knows: the Nova release must be given", e.Major, e.Package)
	}
	return fmt.Sprintf("no installed nova package found below %q: the Nova release must be given", e.Root)
}

var novaPkg = regexp.MustCompile(`/nova-(\d+)\.[^/]*\.(egg|dist)-info$`)

// DetectNovaRelease reads the installed nova Python package's version;
// *ReleaseNotFoundError when none is there or it is too new.
func DetectNovaRelease(root string) (nova.Release, error) {
	for _, f := range novaMetadata(root) {
		if m := novaPkg.FindStringSubmatch(f); m != nil {
			major, _ := strconv.Atoi(m[1])
			if r, err := nova.ParseRelease(strconv.Itoa(major)); err == nil {
				return r, nil
			}
			return nova.ReleaseUnknown, &ReleaseNotFoundError{Root: rootName(root), Major: major, Package: f}
		}
	}
	return nova.ReleaseUnknown, &ReleaseNotFoundError{Root: rootName(root)}
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
