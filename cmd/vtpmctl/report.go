package main

import (
	"context"
	"fmt"
	stdio "io"
	"os"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/compute"
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
	in := report.Inputs{Generated: time.Now(), Cloud: o.Global.Cloud.Cloud}
	for _, f := range o.From {
		if err := in.Load(f); err != nil {
			return usagef("--from: %w", err)
		}
	}
	byHost, hostReports, err := readReportDir(o.HostReports)
	if err != nil {
		return err
	}
	in.Hosts = append(in.Hosts, hostReports...)
	if len(o.From) == 0 {
		if in.Cloud == "" {
			in.Cloud = os.Getenv("OS_CLOUD")
		}
		if err := auditCloud(ctx, o, &in, byHost); err != nil {
			return err
		}
	}
	// The page names secrets, owners and projects: private to its writer.
	if err := fileout.Write(o.Out, fileout.Private, o.IO.Out, func(w stdio.Writer) error { return report.Render(w, in) }); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(o.IO.Err, "vtpmctl: report written to %s\n", o.Out)
	return nil
}

// auditCloud runs the fleet, secrets and upgrade audits on one session,
// with one release detection and one server list for all of them.
func auditCloud(ctx context.Context, o *reportOptions, in *report.Inputs, byHost map[string]hostcheck.Report) error {
	svc, err := o.Global.services(ctx, needCompute|needImage|needPlacement)
	if err != nil {
		return err
	}
	resolved, err := resolveRelease(ctx, o.IO, "--nova-release", o.Release, svc.compute, false, nil)
	if err != nil {
		return err
	}
	rel := resolved.Release
	// The same answer as upgrade check --to (a release the cloud's evidence
	// leaves open is where the upgrade starts), before any listing.
	upFrom, ok := resolved.UpgradeFrom(o.UpgradeTo)
	if o.UpgradeTo != nova.ReleaseUnknown && !ok {
		return usagef("--upgrade-to %s is older than the cloud's %s", o.UpgradeTo, upFrom)
	}
	hosts, err := hostcheck.ListFleet(ctx, svc.compute, svc.placement)
	if err != nil {
		return fmt.Errorf("hosts audit: %w", err)
	}
	inv, err := compute.ListInventory(ctx, svc.compute, svc.image, rel, compute.InventoryOpts{AllTenants: true})
	if err != nil {
		return err
	}
	reps, sum := hostcheck.AuditFleet(rel, hosts, byHost, inv.Guests)
	in.Fleet = hostcheck.NewFleet(rel, hosts, reps, sum)
	if resolved.Ambiguous() {
		in.Fleet.ReleaseContext = resolved.Context()
	}
	_, admin, err := svc.sess.TokenProject()
	if err != nil {
		return err
	}
	sec, _, err := secretsAudit(ctx, &secretsAuditOptions{IO: o.IO, Global: o.Global, AllProjects: admin, IncludeOrphans: true, Concurrency: 8, ServiceProject: "service"}, svc, rel, &inv)
	if err != nil {
		return fmt.Errorf("secrets audit: %w", err)
	}
	if resolved.Ambiguous() {
		sec.ReleaseContext = resolved.Context()
	}
	in.Secrets = &sec
	if o.UpgradeTo != nova.ReleaseUnknown {
		u := hostcheck.UpgradeCheck(upFrom, o.UpgradeTo, hosts, inv.Guests)
		u.From = resolved.Label()
		in.Upgrade = &u
	}
	return nil
}
