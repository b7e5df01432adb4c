package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/compute"
	"github.com/vtpmctl/vtpmctl/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/nova"
)

type hostsOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Reports []string // report files (hosts report) or a dir (hosts audit)
	Dir     string
	Release nova.Release
	JUnit   string
}

func newHostsCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	audit := &hostsOptions{IO: streams, Global: g}
	report := &hostsOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:        "hosts",
		Usage:       "the fleet: audit every compute host's traits, or merge host check reports",
		Description: commandHelp("The fleet view, from the APIs (audit) or from saved host check reports (report).", []string{"vtpmctl --os-cloud prod hosts audit --host-reports ./reports", "vtpmctl hosts report reports/*.json"}, auditExit),
		Action:      groupAction,
		Commands: []*cli.Command{{
			Name:  "audit",
			Usage: "every nova-compute and its Placement traits against what its Nova release requires",
			Description: commandHelp(`
Needs admin credentials. Reads every hypervisor (state, status) in one list and
the TPM traits of every resource provider with one Placement list per trait.
For each host: can the scheduler of this release place a TPM 2.0 / CRB /
host-mode guest there, are traits stale (Nova never removes
SECRET_SECURITY_* traits), is the host down or disabled. --host-reports DIR
merges 'host check -f json' files (matched by hypervisor hostname or host) to
flag drift between a host's configuration and what Placement says.`, []string{
				"vtpmctl --os-cloud prod hosts audit",
				"vtpmctl --os-cloud prod hosts audit --host-reports ./reports --junit fleet.xml",
				"vtpmctl --os-cloud prod hosts audit -f prometheus > vtpm-fleet.prom",
				"vtpmctl --os-cloud prod hosts audit -f json -c host -c findings",
			}, auditExit),
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "host-reports", Usage: "`DIR` of host check JSON reports (*.json)", Destination: &audit.Dir},
				releaseFlag("nova-release", &audit.Release, "Nova `RELEASE` of the scheduler", ""),
				&cli.StringFlag{Name: "junit", Usage: "also write JUnit XML to `FILE` (- for stdout; a device such as /dev/null is written, never replaced)", Destination: &audit.JUnit},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runHostsAudit(ctx, audit)
			},
		}, {
			Name: "report", ArgsUsage: "FILE…", Usage: "merge host check JSON reports into one fleet view",
			Description: commandHelp(`Reads the JSON that 'host check -f json' wrote on each host and prints one row
per host: its release, pass/warn/fail/skip counts, failing checks, traits.`, []string{
				"vtpmctl hosts report reports/*.json",
				"vtpmctl hosts report reports/*.json --junit fleet.xml -f json",
			}, auditExit),
			Flags: []cli.Flag{&cli.StringFlag{Name: "junit", Usage: "also write JUnit XML to `FILE` (- for stdout; a device such as /dev/null is written, never replaced)", Destination: &report.JUnit}},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				report.Reports = cmd.Args().Slice()
				if len(report.Reports) == 0 {
					return usagef("hosts report: name at least one report FILE")
				}
				return runHostsReport(report)
			},
		}},
	}
}

// readReports reads host check reports. Two reports naming the same host
// (by host or hypervisor hostname) are a usage error: which one is
// current is the user's call, and silently keeping the later hid the
// other's findings.
func readReports(paths []string) ([]hostcheck.Report, error) {
	var out []hostcheck.Report
	// A report is one Nova compute service, known by its host ([DEFAULT]
	// host). Two services may share a machine and so libvirt's host name
	// (two nova-computes, as the local cloud runs): that is not a clash.
	seen := map[string]string{} // service host → file that reports it
	for _, p := range paths {
		r, err := hostcheck.ReadReport(p)
		if err != nil {
			return nil, usagef("%w", err)
		}
		if prev, ok := seen[r.Host]; ok && prev != p {
			return nil, usagef("%s and %s both report host %s: keep one", prev, p, r.Host)
		}
		seen[r.Host] = p
		out = append(out, r)
	}
	return out, nil
}

func runHostsReport(o *hostsOptions) error {
	reps, err := readReports(o.Reports)
	if err != nil {
		return err
	}
	var recs []output.Record
	failing := 0
	for _, r := range reps {
		var failed []string
		for _, c := range r.Checks {
			if c.Status == hostcheck.Fail {
				failed = append(failed, c.ID)
			}
		}
		if len(failed) > 0 {
			failing++
		}
		recs = append(recs, output.Record{{Name: "host", Value: r.Host}, {Name: "nova_release", Value: r.NovaRelease},
			{Name: "pass", Value: r.Summary.Pass}, {Name: "warn", Value: r.Summary.Warn}, {Name: "fail", Value: r.Summary.Fail},
			{Name: "skip", Value: r.Summary.Skip}, {Name: "failed_checks", Value: failed}, {Name: "vtpm_guests", Value: len(r.VTPMGuests)},
			{Name: "traits", Value: r.Traits}})
	}
	if err := output.Write(o.IO.Out, o.Global.Output, output.List{Columns: []string{"host", "nova_release", "pass", "warn", "fail", "skip", "failed_checks", "vtpm_guests", "traits"}, Rows: recs}); err != nil {
		return err
	}
	if err := writeJUnit(o.IO.Out, o.JUnit, "vtpmctl hosts report", hostcheck.Suites(reps), fileout.Public); err != nil {
		return err
	}
	if failing > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("%d of %d host(s) have failing checks", failing, len(reps))}
	}
	return nil
}

// readReportDir reads --host-reports DIR: each host's report by its
// hypervisor hostname and its host name.
func readReportDir(dir string) (map[string]hostcheck.Report, []hostcheck.Report, error) {
	reports := map[string]hostcheck.Report{}
	if dir == "" {
		return reports, nil, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, nil, usagef("--host-reports %s: no *.json report in it", dir)
	}
	reps, err := readReports(files)
	if err != nil {
		return nil, nil, err
	}
	nodes := map[string]int{}
	for _, r := range reps {
		nodes[r.Facts.HypervisorHostname]++
	}
	for _, r := range reps {
		// a node name two services share names neither
		if hn := r.Facts.HypervisorHostname; hn != "" && nodes[hn] == 1 {
			reports[hn] = r
		}
		reports[r.Host] = r
	}
	return reports, reps, nil
}

func runHostsAudit(ctx context.Context, o *hostsOptions) error {
	reports, _, err := readReportDir(o.Dir)
	if err != nil {
		return err
	}
	svc, err := o.Global.services(ctx, needCompute|needImage|needPlacement)
	if err != nil {
		return err
	}
	computeClient, imageClient, placement := svc.compute, svc.image, svc.placement
	res, err := resolveRelease(ctx, o.IO, "--nova-release", o.Release, computeClient, false, nil)
	if err != nil {
		return err
	}
	rel := res.Release
	hosts, err := hostcheck.ListFleet(ctx, computeClient, placement)
	if err != nil {
		return err
	}
	inv, err := compute.ListInventory(ctx, computeClient, imageClient, rel, compute.InventoryOpts{AllTenants: true})
	if err != nil {
		return err
	}
	reps, sum := hostcheck.AuditFleet(rel, hosts, reports, inv.Guests)
	fleet := hostcheck.NewFleet(rel, hosts, reps, sum)
	if res.Ambiguous() {
		fleet.ReleaseContext = res.Context()
	}
	if err := output.Write(o.IO.Out, o.Global.Output, fleet); err != nil {
		return err
	}
	if err := writeJUnit(o.IO.Out, o.JUnit, "vtpmctl hosts audit", hostcheck.Suites(reps), fileout.Private); err != nil {
		return err
	}
	if sum.Failing > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("%d of %d host(s) have failing checks", sum.Failing, sum.Hosts)}
	}
	return nil
}
