package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

type hostCheckOptions struct {
	IO     *IOStreams
	Global *globalOptions

	NovaConf    []string
	NovaConfDir string
	QemuConf    string
	LibvirtURI  string
	Release     nova.Release
	Root        string
	StateDir    string
	JUnit       string
	Layout      string
	NovaRoot    string
	LibvirtRoot string
	View        viewOptions
}

func newHostCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &hostCheckOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:        "host",
		Usage:       "audit this compute host for vTPM guests (no cloud credentials needed)",
		Description: commandHelp("Checks run on the compute node itself; see vtpmctl host check --help.", []string{"vtpmctl host check", "vtpmctl host check -f json --junit host.xml"}, auditExit),
		Action:      groupAction,
		Commands: []*cli.Command{withResult(withFormats(&cli.Command{
			Name:  "check",
			Usage: "will a vTPM guest boot here, keep its TPM state, and is the scheduler told the truth?",
			Description: commandHelp(`
Runs on a compute node and reads its nova.conf (oslo.config semantics: several
files and a config dir, later wins), libvirt's qemu.conf, the swtpm binaries,
the accounts, the swtpm state and local-CA directories, and asks libvirt
(read-only) for its versions, domain capabilities, vTPM domains and secrets.
Each check has an ID, a status (pass, warn, fail, skip with a reason), a
message — Nova's own text where nova-compute would refuse to start — and a
remedy. The JSON output carries the traits Nova on this release reports for
the host, for 'hosts audit --host-reports' and 'hosts report'.

--root DIR reads every file below DIR (a mounted host image, or a test tree)
as a chroot would: a symlink means what it means on that host, resolved inside
DIR, never a path on this machine; only regular files under 16 MiB are read.
Binaries are then not run, AppArmor is skipped, the host name comes from its
nova.conf or /etc/hostname, and libvirt is not asked unless --libvirt-uri names
the audited host's. The Nova release is read from the installed nova package
unless --nova-release is given.

--layout says where the deployment keeps things (auto detects it and the
report names it):
  packages           distribution packages: /etc/nova, /etc/libvirt, /var/lib/libvirt/swtpm
  kolla              /etc/kolla/nova-compute/nova.conf, /etc/kolla/nova-libvirt/qemu.conf,
                     the swtpm user and binaries in the nova_compute and nova_libvirt
                     containers (found with docker/podman inspect, read, never run),
                     the swtpm state in the "libvirtd" volume
  openstack-helm     run in the libvirt image with the nova-etc and libvirt-etc
                     Secrets mounted as the charts mount them
                     (examples/kubernetes/host-check-daemonset.yaml)
  openstack-ansible  Nova in /openstack/venvs/nova-*, /etc/nova a link into it
--nova-root and --libvirt-root name the filesystems nova-compute and
libvirtd run in (a container's) when they cannot be found.
`+viewHelp("checks")+`
A --summary or --status document is a view for people: hosts audit
--host-reports and hosts report want the whole report.`, []string{
				"vtpmctl host check",
				"vtpmctl host check -f json > $(hostname).json",
				"vtpmctl host check --nova-conf /etc/nova/nova.conf --nova-conf /etc/nova/nova-compute.conf --junit host.xml",
				"vtpmctl host check --root /mnt/compute07 --nova-release 2024.2",
				"vtpmctl host check --layout kolla --junit host.xml",
				"vtpmctl host check --status fail,warn",
				"vtpmctl host check --summary",
				"vtpmctl host check -f prometheus > /var/lib/node_exporter/textfile/vtpm.prom.tmp; [ $? -le 1 ] && mv /var/lib/node_exporter/textfile/vtpm.prom.tmp /var/lib/node_exporter/textfile/vtpm.prom",
			}, auditExit),
			Flags: append([]cli.Flag{
				&cli.StringSliceFlag{Name: "nova-conf", Usage: "nova.conf `FILE` (repeatable, in order; default /etc/nova/nova.conf and nova-compute.conf)", Destination: &o.NovaConf},
				&cli.StringFlag{Name: "nova-config-dir", Usage: "`DIR` whose *.conf are read after the files", Destination: &o.NovaConfDir},
				&cli.StringFlag{Name: "layout", Usage: "deployment `LAYOUT`: auto, packages, kolla, openstack-helm, openstack-ansible", Value: "auto", Destination: &o.Layout},
				&cli.StringFlag{Name: "nova-root", Usage: "`DIR` holding nova-compute's filesystem (a container image's), for its swtpm user and binaries", Destination: &o.NovaRoot},
				&cli.StringFlag{Name: "libvirt-root", Usage: "`DIR` holding libvirtd's filesystem (a container image's)", Destination: &o.LibvirtRoot},
				&cli.StringFlag{Name: "qemu-conf", Usage: "libvirt's qemu.conf `FILE`", DefaultText: "the layout's, /etc/libvirt/qemu.conf with packages", Destination: &o.QemuConf},
				&cli.StringFlag{Name: "libvirt-uri", Usage: "libvirt `URI` (default: [libvirt] connection_uri, else qemu:///system)", Destination: &o.LibvirtURI},
				releaseFlag("nova-release", &o.Release, "Nova `RELEASE`", "the installed nova package's"),
				&cli.StringFlag{Name: "root", Usage: "read every file below `DIR`", Destination: &o.Root},
				&cli.StringFlag{Name: "swtpm-state-dir", Usage: "vTPM state `DIR`", DefaultText: "the layout's, /var/lib/libvirt/swtpm with packages", Destination: &o.StateDir},
				junitFlag(&o.JUnit),
			}, viewFlags(&o.View)...),
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runHostCheck(ctx, o)
			},
		}, metricsFormats...), summaryOr(&hostcheck.Report{}, hostcheck.Report{}.SummaryView())), newHostSecureBootCommand(g, streams)},
	}
}

func runHostCheck(ctx context.Context, o *hostCheckOptions) error {
	if err := o.View.parse(); err != nil {
		return err
	}
	rep, err := hostcheck.RunOnHost(ctx, hostcheck.Options{Root: o.Root, NovaConf: o.NovaConf, NovaConfDir: o.NovaConfDir, QemuConf: o.QemuConf,
		LibvirtURI: o.LibvirtURI, Release: o.Release, StateDir: o.StateDir, Layout: o.Layout, NovaRoot: o.NovaRoot, LibvirtRoot: o.LibvirtRoot,
		Words: cliWords{}})
	if err != nil {
		return hostCheckError(err)
	}
	view := o.View.pick(o.Global.Output, rep, func() any { return rep.SummaryView() },
		func(f result.Filter) any { r := rep.Only(f); return &r })
	if err := output.Write(o.IO.Out, o.Global.Output, view); err != nil {
		return err
	}
	if err := writeJUnit(ctx, o.IO.Out, o.JUnit, "vtpmctl host check", func() []result.Suite { return hostcheck.Suites([]hostcheck.Report{*rep}) }, fileout.Public); err != nil {
		return err
	}
	if rep.Failed() {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("host %s: %d check(s) failed", rep.Host, rep.Summary.Fail)}
	}
	return nil
}

// hostCheckError: what host check cannot start from is a usage error,
// worded with this command's flags.
func hostCheckError(err error) error {
	msg := err.Error()
	var rel *hostcheck.ReleaseNotFoundError
	var lay *hostcheck.LayoutError
	switch {
	case errors.As(err, &lay):
		msg = fmt.Sprintf("--layout %q: not a layout (%s)", lay.Name, choiceHint(strings.ToLower(lay.Name), hostcheck.Layouts))
	case errors.As(err, &rel):
		msg = fmt.Sprintf("no installed nova package found below %q: pass --nova-release (e.g. zed, 2024.2)", rel.Root)
		if rel.Major > 0 {
			msg = fmt.Sprintf("nova %d (%s) is newer than vtpmctl knows; pass --nova-release", rel.Major, rel.Package)
		}
	}
	return &usageError{msg: msg, err: err}
}
