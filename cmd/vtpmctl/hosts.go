package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/hosts"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

type hostsOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Reports []string // report files (hosts report) or a dir (hosts audit)
	Dir     string
	Release nova.Release
	JUnit   string
	// Drain: --drain HOST (DrainSet: the flag was given, even empty).
	Drain    string
	DrainSet bool
	Long     bool // --drain: a row per guest
	View     viewOptions
}

// hostsAuditExit: hosts audit's statuses; with --drain the question is
// whether the host can be emptied, so a guest that stays fails it.
const hostsAuditExit = `EXIT STATUS:
   0  every check passed (warnings and skips included); with --drain HOST:
      every vTPM guest on HOST can leave it (live or cold migration)
   1  at least one host has a failing check; with --drain HOST: at least
      one vTPM guest would stay on HOST (each is listed with why)
   2  usage error (--drain without a host, or a host the audit does not
      know), unreadable --host-reports, no or unknown cloud`

func newHostsCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	audit := &hostsOptions{IO: streams, Global: g}
	report := &hostsOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:        "hosts",
		Usage:       "the fleet: audit every compute host's traits, or merge host check reports",
		Description: commandHelp("The fleet view, from the APIs (audit) or from saved host check reports (report).", []string{"vtpmctl --os-cloud prod hosts audit --host-reports ./reports", "vtpmctl hosts report reports/*.json"}, auditExit),
		Action:      groupAction,
		Commands: []*cli.Command{withResult(withFormats(&cli.Command{
			Name:  "audit",
			Usage: "every nova-compute and its Placement traits against what its Nova release requires",
			Description: commandHelp(`
Needs admin credentials. Reads every hypervisor (state, status) in one list and
the TPM traits of every resource provider with one Placement list per trait.
For each host: can the scheduler of this release place a TPM 2.0 / CRB /
host-mode guest there, are traits stale (Nova never removes
SECRET_SECURITY_* traits), is the host down or disabled. --host-reports DIR
merges 'host check -f json' files (matched by hypervisor hostname or host) to
flag drift between a host's configuration and what Placement says.

Draining: for every vTPM guest, how it can leave its host: live-migrate (host
mode on Nova 33, 2026.1, or later, the source holds its libvirt secret, every
compute at Nova 33 or later, a destination with the mode's traits and a
libtpms no older than the source's), cold-migrate (the guest is stopped; Nova
allows it in every mode), or stays; the summary counts each. --drain HOST
shows only that host's guests: the verdict first, then the guests grouped by
how they leave and why, each reason once with its count and a few names;
--long gives a row per guest (server, name, mode, drain, reason), as -f json
always does. Compute service versions come from the host check reports: the
os-services API shows none.
`+viewHelp("hosts (a host's status: its worst finding)"), []string{
				"vtpmctl --os-cloud prod hosts audit",
				"vtpmctl --os-cloud prod hosts audit --host-reports ./reports --junit fleet.xml",
				"vtpmctl --os-cloud prod hosts audit -f prometheus > vtpm-fleet.prom",
				"vtpmctl --os-cloud prod hosts audit -f json -c host -c result",
				"vtpmctl --os-cloud prod hosts audit --host-reports ./reports --drain cmp1",
				"vtpmctl --os-cloud prod hosts audit --drain cmp1 --long",
				"vtpmctl --os-cloud prod hosts audit --summary",
				"vtpmctl --os-cloud prod hosts audit --status fail -f json",
			}, hostsAuditExit),
			Flags: append([]cli.Flag{
				&cli.StringFlag{Name: "host-reports", Usage: "`DIR` of host check JSON reports (*.json)", Destination: &audit.Dir},
				releaseFlag("nova-release", &audit.Release, "Nova `RELEASE` of the scheduler", ""),
				junitFlag(&audit.JUnit),
				&cli.StringFlag{Name: "drain", Usage: "show only `HOST`'s vTPM guests and how each leaves it (service host or hypervisor hostname)", Destination: &audit.Drain},
				longFlag(&audit.Long, "with --drain: a row per guest"),
			}, viewFlags(&audit.View)...),
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				audit.DrainSet = cmd.IsSet("drain")
				return runHostsAudit(ctx, audit)
			},
		}, metricsFormats...), hostsAuditResult), withResult(&cli.Command{
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
				return runHostsReport(ctx, report)
			},
		}, prints(hostsReportDocument(nil)))},
	}
}

// hostsReportDocument is hosts report's document.
func hostsReportDocument(recs []output.Record) output.List {
	// each host's worst check first, its row a JSON object whose keys
	// are the columns
	return output.List{Schema: fleet.HostsReportSchema, Key: "hosts", Verdict: "result",
		Columns: []string{"result", "host", "nova_release", "pass", "warn", "fail", "skip", "failed_checks", "vtpm_guests", "traits"}, Rows: recs}
}

func runHostsReport(ctx context.Context, o *hostsOptions) error {
	reps, err := readReports(o.Reports)
	if err != nil {
		return err
	}
	var recs []output.Record
	failing := 0
	for _, r := range reps {
		var failed []string
		statuses := make([]result.Status, len(r.Checks))
		for i, c := range r.Checks {
			statuses[i] = c.Status
			if c.Status == hostcheck.Fail {
				failed = append(failed, c.ID)
			}
		}
		if len(failed) > 0 {
			failing++
		}
		recs = append(recs, output.Record{{Name: "result", Value: result.Worst(statuses...)}, {Name: "host", Value: r.Host}, {Name: "nova_release", Value: r.NovaRelease},
			{Name: "pass", Value: r.Summary.Pass}, {Name: "warn", Value: r.Summary.Warn}, {Name: "fail", Value: r.Summary.Fail},
			{Name: "skip", Value: r.Summary.Skip}, {Name: "failed_checks", Value: failed}, {Name: "vtpm_guests", Value: len(r.VTPMGuests)},
			{Name: "traits", Value: r.Traits}})
	}
	if err := output.Write(o.IO.Out, o.Global.Output, hostsReportDocument(recs)); err != nil {
		return err
	}
	if err := writeJUnit(ctx, o.IO.Out, o.JUnit, "vtpmctl hosts report", func() []result.Suite { return hostcheck.Suites(reps) }, fileout.Public); err != nil {
		return err
	}
	if failing > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("%d of %d host(s) have failing checks", failing, len(reps))}
	}
	return nil
}

// checkDrainFlag refuses a --drain that cannot name a host, before any
// cloud is asked.
func checkDrainFlag(o *hostsOptions) error {
	if !o.DrainSet {
		return nil
	}
	switch h := o.Drain; {
	case strings.TrimSpace(h) == "":
		return usagef("--drain: name a compute host (its service host or hypervisor hostname)")
	case strings.HasPrefix(h, "-"):
		return usagef("--drain %s: a host name, not a flag", h)
	case strings.TrimSpace(h) != h || strings.ContainsAny(h, " \t\n/"):
		return usagef("--drain %q: not a host name", h)
	case output.Format(o.Global.Output.Format) == output.FormatPrometheus:
		return usagef("--drain %s lists guests: -f prometheus is for the whole audit", h)
	}
	return nil
}

func runHostsAudit(ctx context.Context, o *hostsOptions) error {
	if err := checkDrainFlag(o); err != nil {
		return err
	}
	if err := o.View.parse(); err != nil {
		return err
	}
	if o.DrainSet && o.View.set() {
		return usagef("--drain %s lists that host's guests: --summary and --status are for the whole audit", o.Drain)
	}
	if o.Long && !o.DrainSet {
		return usagef("--long lists each guest of --drain HOST: without --drain the audit's rows are its hosts, each listed already")
	}
	reports, err := readHostReports(o.Dir)
	if err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := hosts.Audit(ctx, sess, hosts.AuditRequest{Release: nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease}, HostReports: reports})
	if err != nil {
		return err
	}
	res.DrainHint = "hosts audit --drain HOST"
	warnRelease(o.IO, res.Resolved)
	if o.DrainSet {
		return writeDrain(ctx, o, &res)
	}
	view := o.View.pick(o.Global.Output, &res, func() any { return res.SummaryView() },
		func(f result.Filter) any { r := res.Only(f); return &r })
	if err := output.Write(o.IO.Out, o.Global.Output, view); err != nil {
		return err
	}
	if err := writeJUnit(ctx, o.IO.Out, o.JUnit, "vtpmctl hosts audit", res.Suites, fileout.Private); err != nil {
		return err
	}
	if s := res.Summary; s.Failing > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("%d of %d host(s) have failing checks", s.Failing, s.Hosts)}
	}
	return nil
}

// writeDrain prints --drain HOST's answer; a guest that stays fails it.
func writeDrain(ctx context.Context, o *hostsOptions, res *fleet.Result) error {
	d, ok := res.Drain(o.Drain)
	if !ok {
		return usagef("--drain %s: no such compute host in the audit (a nova-compute service host or hypervisor hostname)", o.Drain)
	}
	var view any = &d
	if brief(o.Global.Output, o.Long) {
		view = d.Brief(longHint)
	}
	if err := output.Write(o.IO.Out, o.Global.Output, view); err != nil {
		return err
	}
	if err := writeJUnit(ctx, o.IO.Out, o.JUnit, "vtpmctl hosts audit", res.Suites, fileout.Private); err != nil {
		return err
	}
	if n := d.Summary[fleet.DrainStays]; n > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("%d of %d vTPM guest(s) on %s would stay: the host cannot be drained", n, len(d.Guests), d.Host)}
	}
	return nil
}
