package main

import (
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/result"

	"github.com/vtpmctl/vtpmctl/app/report"
	"github.com/vtpmctl/vtpmctl/domain/reportpage"
)

type reportOptions struct {
	IO          *IOStreams
	Global      *globalOptions
	Out         string
	From        []string
	HostReports string
	UpgradeTo   nova.Release
	Release     nova.Release
	View        viewOptions
	FailOn      string
}

func newReportCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &reportOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:      "report",
		ArgsUsage: "[FILE…]",
		Usage:     "one self-contained HTML page for a compliance reviewer: hosts, fleet, secrets, upgrade",
		Description: commandHelp(`
Writes one HTML file that renders offline (no external asset): a summary a
reviewer reads in a minute — first what needs attention, worst first, each
by count and status and linked to its row; then pass/warn/fail per area (pass
only when the area has no fail or warn finding), counts, a chart of hosts by
vTPM capability and of vTPM guests by risk — then every finding with its
remedy, worst first, identical findings one row with their count and, in a
list to open, every host, guest or secret. The BitLocker and Secure Boot
sections need the hosts' check reports (--host-reports, or host check JSON
as inputs); without them they say so. With --from it renders saved JSON results (host check, hosts audit,
secrets audit, upgrade check -f json: each names its kind and version in
"schema"; a file from an older vtpmctl is refused with what to do); without
it, it runs hosts audit and secrets audit against the cloud (admin: all
projects) with one release detection and one server list, plus upgrade check
with --upgrade-to.

Arguments after the flags are more saved results, as if each followed a
--from: a shell glob (--from reports/*.json) expands to several files and
all of them are read.

A remedy that several rows share is said once, in a Remedies table with
how many findings it applies to; each row links to it.

--summary writes the tiles and charts alone, no finding listed;
--status fail,warn lists only the findings of those statuses (pass, warn,
fail, skip; a comma list or repeated). The tiles and counts stay the
whole run's. --fail-on fail exits 1 when any finding fails, --fail-on
warn when any fails or warns (whatever the view lists), for pipelines.`, []string{
			"vtpmctl --os-cloud prod report -o vtpm-report.html --upgrade-to 2026.1",
			"vtpmctl report -o report.html --from fleet.json --from secrets.json --from reports/*.json",
			"vtpmctl --os-cloud prod report -o vtpm-report.html --fail-on fail",
			"vtpmctl report -o failures.html --status fail --from secrets.json",
			"vtpmctl report -o summary.html --summary --from fleet.json --from secrets.json",
		}, `EXIT STATUS:
   0  the report was written (whatever it found, unless --fail-on says otherwise)
   1  a result could not be gathered or the file could not be written; with
      --fail-on fail: a finding fails; with --fail-on warn: a finding fails or
      warns (the report is written first)
   2  usage error, unreadable --from file`),
		Flags: []cli.Flag{
			outputFlag(&o.Out, "write the HTML to `FILE` (required; mode 0600: it names owners and secrets; - for stdout)"),
			hiddenAlias("out", &o.Out),
			&cli.StringSliceFlag{Name: "from", Usage: "render saved JSON result `FILE` (repeatable; FILE arguments count as more)", Destination: &o.From},
			&cli.StringFlag{Name: "host-reports", Usage: "`DIR` of host check JSON reports to include", Destination: &o.HostReports},
			&cli.GenericFlag{Name: "upgrade-to", Usage: "also check an upgrade of the scheduler to `RELEASE`", Value: releaseValue{&o.UpgradeTo}},
			releaseFlag("nova-release", &o.Release, "the cloud's Nova `RELEASE`, when its API leaves several open", ""),
			&cli.StringFlag{Name: "fail-on", Usage: "exit 1 when a finding has `STATUS` fail, or (warn) fails or warns; default: exit 0 whatever was found", Destination: &o.FailOn},
			&cli.BoolFlag{Name: "summary", Usage: "write the tiles and charts alone, no finding listed", Destination: &o.View.Summary},
			&cli.StringSliceFlag{Name: "status", Usage: "list only findings of `STATUS` (fail, warn, skip, pass; comma list or repeatable); the tiles stay the whole run's", Destination: &o.View.Status},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			// The shell expands --from reports/*.json into one --from and
			// more words: those are inputs too, not a usage error.
			o.From = append(o.From, cmd.Args().Slice()...)
			return runReport(ctx, o)
		},
	}
}

func runReport(ctx context.Context, o *reportOptions) error {
	if o.Out == "" {
		return usagef("report: --output FILE is required (- for stdout)")
	}
	if err := o.View.parse(); err != nil {
		return err
	}
	failOn, err := parseFailOn(o.FailOn)
	if err != nil {
		return err
	}
	hostReports, err := readHostReports(o.HostReports)
	if err != nil {
		return err
	}
	in, err := reportInputs(ctx, o, hostReports)
	if err != nil {
		return err
	}
	in.Generated = time.Now()
	// The page names secrets, owners and projects: private to its writer.
	if err := fileout.Write(ctx, o.Out, fileout.Private, o.IO.Out, func(w stdio.Writer) error {
		return reportpage.RenderView(w, in, reportpage.View{Summary: o.View.Summary, Status: o.View.filter}, cliWords{})
	}); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	fmt.Fprintf(o.IO.Err, "vtpmctl: report written to %s\n", o.Out)
	if worst := in.Worst(); len(failOn) > 0 && failOn.Keeps(worst) {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("report: a finding has status %s (--fail-on %s)", worst, o.FailOn)}
	}
	return nil
}

// parseFailOn: --fail-on fail fails on failures, warn on warnings too;
// empty fails on nothing.
func parseFailOn(s string) (result.Filter, error) {
	switch s {
	case "":
		return nil, nil
	case string(result.Fail):
		return result.Filter{result.Fail}, nil
	case string(result.Warn):
		return result.Filter{result.Fail, result.Warn}, nil
	}
	return nil, usagef("--fail-on %q: not fail or warn (%s)", s, choiceHint(strings.ToLower(s), []string{string(result.Fail), string(result.Warn)}))
}

// reportInputs are the saved results (--from) or, without any, one
// report.Build on the cloud; --host-reports joins either.
func reportInputs(ctx context.Context, o *reportOptions, hostReports []hostcheck.Report) (reportpage.Inputs, error) {
	if len(o.From) > 0 {
		in := reportpage.Inputs{Cloud: o.Global.Cloud.Cloud}
		for _, f := range o.From {
			if err := in.Load(f); err != nil {
				return in, usagef("--from: %w", err)
			}
		}
		in.Hosts = append(in.Hosts, hostReports...)
		return in, nil
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return reportpage.Inputs{}, err
	}
	progress, cleared := auditProgress(ctx, o.IO.Err)
	in, err := report.Build(ctx, sess, report.Request{
		Release: nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease}, UpgradeTo: o.UpgradeTo, HostReports: hostReports,
		Progress: progress})
	cleared()
	var older *fleet.OlderTargetError
	if errors.As(err, &older) {
		return in, usagef("--upgrade-to %w", err)
	}
	if err != nil {
		return in, err
	}
	warnRelease(o.IO, in.Resolved)
	if in.Cloud == "" {
		in.Cloud = os.Getenv("OS_CLOUD")
	}
	return in, nil
}
