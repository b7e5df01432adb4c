package main

import (
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/fleet"
	"github.com/vtpmctl/vtpmctl/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/nova"
	"github.com/vtpmctl/vtpmctl/report"
)

type reportOptions struct {
	IO          *IOStreams
	Global      *globalOptions
	Out         string
	From        []string
	HostReports string
	UpgradeTo   nova.Release
	Release     nova.Release
}

func newReportCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &reportOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:      "report",
		ArgsUsage: "[FILE…]",
		Usage:     "one self-contained HTML page for a compliance reviewer: hosts, fleet, secrets, upgrade",
		Description: commandHelp(`
Writes one HTML file that renders offline (no external asset): a summary a
reviewer reads in a minute — pass/fail per area, counts, a chart of hosts by
vTPM capability and of vTPM guests by risk — then every finding with its
remedy. With --from it renders saved JSON results (host check, hosts audit,
secrets audit, upgrade check -f json: each names its kind and version in
"schema"; a file from an older vtpmctl is refused with what to do); without
it, it runs hosts audit and secrets audit against the cloud (admin: all
projects) with one release detection and one server list, plus upgrade check
with --upgrade-to.

Arguments after the flags are more saved results, as if each followed a
--from: a shell glob (--from reports/*.json) expands to several files and
all of them are read.`, []string{
			"vtpmctl --os-cloud prod report --out vtpm-report.html --upgrade-to 2026.1",
			"vtpmctl report --out report.html --from fleet.json --from secrets.json --from reports/*.json",
		}, `EXIT STATUS:
   0  the report was written (whatever it found)
   1  a result could not be gathered or the file could not be written
   2  usage error, unreadable --from file`),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "write the HTML to `FILE` (mode 0600: it names owners and secrets; - for stdout)", Required: true, Destination: &o.Out},
			&cli.StringSliceFlag{Name: "from", Usage: "render saved JSON result `FILE` (repeatable; FILE arguments count as more)", Destination: &o.From},
			&cli.StringFlag{Name: "host-reports", Usage: "`DIR` of host check JSON reports to include", Destination: &o.HostReports},
			&cli.GenericFlag{Name: "upgrade-to", Usage: "also check an upgrade of the scheduler to `RELEASE`", Value: &o.UpgradeTo},
			releaseFlag("nova-release", &o.Release, "the cloud's Nova `RELEASE`, when its API leaves several open", ""),
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
	if err := fileout.Write(o.Out, fileout.Private, o.IO.Out, func(w stdio.Writer) error { return report.Render(w, in) }); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(o.IO.Err, "vtpmctl: report written to %s\n", o.Out)
	return nil
}

// reportInputs are the saved results (--from) or, without any, one
// report.Build on the cloud; --host-reports joins either.
func reportInputs(ctx context.Context, o *reportOptions, hostReports []hostcheck.Report) (report.Inputs, error) {
	if len(o.From) > 0 {
		in := report.Inputs{Cloud: o.Global.Cloud.Cloud}
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
		return report.Inputs{}, err
	}
	in, err := report.Build(withProgress(ctx, o.IO.Err, "auditing projects"), sess, report.Request{
		Release: nova.ReleaseEvidence{Flag: o.Release, FlagName: "--nova-release"}, UpgradeTo: o.UpgradeTo, HostReports: hostReports})
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
