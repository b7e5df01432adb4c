package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/fleet"
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
		Commands: []*cli.Command{withFormats(&cli.Command{
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
				junitFlag(&audit.JUnit),
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runHostsAudit(ctx, audit)
			},
		}, metricsFormats...), {
			Name: "report", ArgsUsage: "FILE…", Usage: "merge host check JSON reports into one fleet view",
			Description: commandHelp(`Reads the JSON that 'host check -f json' wrote on each host and prints one row
per host: its release, pass/warn/fail/skip counts, failing checks, traits.`, []string{
				"vtpmctl hosts report reports/*.json",
				"vtpmctl hosts report reports/*.json --junit fleet.xml -f json",
			}, auditExit),
			Flags: []cli.Flag{junitFlag(&report.JUnit)},
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

// readReports reads host check report files: any fault in them is the
// user's input (a FIFO, not JSON, two reports of one host), so usage.
func readReports(paths []string) ([]hostcheck.Report, error) {
	reps, err := hostcheck.ReadReports(paths)
	if err != nil {
		return nil, usagef("%w", err)
	}
	return reps, nil
}

// readHostReports reads --host-reports DIR (none: no reports), before
// any cloud is asked.
func readHostReports(dir string) ([]hostcheck.Report, error) {
	if dir == "" {
		return nil, nil
	}
	reps, err := hostcheck.ReadReportDir(dir)
	if errors.Is(err, hostcheck.ErrNoReports) {
		return nil, usagef("--host-reports %s: %w", dir, err)
	}
	if err != nil {
		return nil, usagef("%w", err)
	}
	return reps, nil
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

func runHostsAudit(ctx context.Context, o *hostsOptions) error {
	reports, err := readHostReports(o.Dir)
	if err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := fleet.Audit(ctx, sess, fleet.AuditRequest{Release: nova.ReleaseEvidence{Flag: o.Release, FlagName: "--nova-release"}, HostReports: reports})
	if err != nil {
		return err
	}
	warnRelease(o.IO, res.Resolved)
	if err := output.Write(o.IO.Out, o.Global.Output, &res); err != nil {
		return err
	}
	if err := writeJUnit(o.IO.Out, o.JUnit, "vtpmctl hosts audit", res.Suites(), fileout.Private); err != nil {
		return err
	}
	if s := res.Summary; s.Failing > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("%d of %d host(s) have failing checks", s.Failing, s.Hosts)}
	}
	return nil
}
