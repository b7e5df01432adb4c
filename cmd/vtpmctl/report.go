package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
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
}

func newReportCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &reportOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:  "report",
		Usage: "one self-contained HTML page for a compliance reviewer: hosts, fleet, secrets, upgrade",
		Description: commandHelp(`
Writes one HTML file that renders offline (no external asset): a summary a
reviewer reads in a minute — pass/fail per area, counts, a chart of hosts by
vTPM capability and of vTPM guests by risk — then every finding with its
remedy. With --from it renders saved JSON results (host check, hosts audit,
secrets audit, upgrade check: each file's kind is recognised); without it, it
runs hosts audit and secrets audit against the cloud (admin: all projects),
plus upgrade check with --upgrade-to.`, []string{
			"vtpmctl --os-cloud prod report --out vtpm-report.html --upgrade-to 2026.1",
			"vtpmctl report --out report.html --from fleet.json --from secrets.json --from reports/*.json",
		}, `EXIT STATUS:
   0  the report was written (whatever it found)
   1  a result could not be gathered or the file could not be written
   2  usage error, unreadable --from file`),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "write the HTML to `FILE` (mode 0600: it names owners and secrets; - for stdout)", Required: true, Destination: &o.Out},
			&cli.StringSliceFlag{Name: "from", Usage: "render saved JSON result `FILE` (repeatable)", Destination: &o.From},
			&cli.StringFlag{Name: "host-reports", Usage: "`DIR` of host check JSON reports to include", Destination: &o.HostReports},
			&cli.GenericFlag{Name: "upgrade-to", Usage: "also check an upgrade of the scheduler to `RELEASE`", Value: &o.UpgradeTo},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return runReport(ctx, o)
		},
	}
}

func runReport(ctx context.Context, o *reportOptions) error {
	in := report.Inputs{Generated: time.Now(), Cloud: o.Global.Cloud.Cloud}
	files := append([]string{}, o.From...)
	if o.HostReports != "" {
		m, _ := filepath.Glob(filepath.Join(o.HostReports, "*.json"))
		if len(m) == 0 {
			return usagef("--host-reports %s: no *.json in it", o.HostReports)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		if err := in.Load(f); err != nil {
			return usagef("--from: %w", err)
		}
	}
	if len(o.From) == 0 {
		if in.Cloud == "" {
			in.Cloud = os.Getenv("OS_CLOUD")
		}
		// The same commands a user would run, their JSON read back.
		js := *o.Global
		js.Output = output.Options{Format: "json"}
		steps := []struct {
			name string
			run  func(io *IOStreams) error
		}{
			{"hosts audit", func(io *IOStreams) error {
				return runHostsAudit(ctx, &hostsOptions{IO: io, Global: &js, Dir: o.HostReports})
			}},
			{"secrets audit", func(io *IOStreams) error {
				_, admin, _ := js.session.TokenProject()
				return runSecretsAudit(ctx, &secretsAuditOptions{IO: io, Global: &js, AllProjects: admin, IncludeOrphans: true, Concurrency: 8, ServiceProject: "service"})
			}},
		}
		if o.UpgradeTo != nova.ReleaseUnknown {
			steps = append(steps, struct {
				name string
				run  func(io *IOStreams) error
			}{"upgrade check", func(io *IOStreams) error {
				return runUpgradeCheck(ctx, &upgradeOptions{IO: io, Global: &js, To: o.UpgradeTo})
			}})
		}
		if _, err := js.connect(ctx); err != nil {
			return err
		}
		for _, s := range steps {
			var out, errb bytes.Buffer
			err := s.run(&IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
			var rep *reportedError
			if err != nil && !errors.As(err, &rep) {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			err = in.LoadBytes(s.name, out.Bytes())
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
		}
	}
	// The page names secrets, owners and projects: private to its writer.
	if err := fileout.Write(o.Out, fileout.Private, o.IO.Out, func(w stdio.Writer) error { return report.Render(w, in) }); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(o.IO.Err, "vtpmctl: report written to %s\n", o.Out)
	return nil
}
