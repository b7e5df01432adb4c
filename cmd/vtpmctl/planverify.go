package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/plan"
	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

type planVerifyOptions struct {
	IO             *IOStreams
	Global         *globalOptions
	File           string
	Release        nova.Release
	JUnit          string
	Match          []string
	HostReports    string
	NoSecrets      bool
	NoACLs         bool
	ServiceProject string
	View           viewOptions
}

func newPlanVerifyCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &planVerifyOptions{IO: streams, Global: g}
	return withResult(&cli.Command{
		Name: "verify", ArgsUsage: "PLAN", Usage: "after cutover: did each planned VM get what the plan promised?",
		Description: commandHelp(`
Finds each planned VM's server (one server list; with an admin's credentials
across every project), trying in turn: an explicit --match VM=SERVER, the
server's metadata vtpmctl:source, its image's vtpmctl:source (plan apply
stamps it on each VM's own image), --match templates, then the VM's name.
The value of vtpmctl:source is the VM's "source" in the output
(vCenter host/MoRef); a migration tool can set it at server create:
  openstack server create --property vtpmctl:source=vc01/vm-53 …

Checks per server, with Nova's rules for the cloud's release:
  STATUS       the server is ACTIVE
  VTPM         its flavor and image give the vTPM version/model promised
  FIRMWARE     UEFI (hw_firmware_type) as the source booted; BIOS stays BIOS
  SECURE-BOOT  os:secure_boot / os_secure_boot required where the source had it
  SECRET       its Barbican secret passes the secrets audit (vTPM guests)
  HOST-TRAITS  its host reports the traits Nova requires for it (admin)
  DOMAIN-TPM   the running domain has its <tpm> (from --host-reports), with
               the guest's NVRAM view where the report has it: a warning at
               BitLocker-recovery risk high, "not checked" in older reports
A check that cannot run is "skip" with the reason, never a pass. Image
properties are read as they are now; Nova copied them at boot.

Per VM: verified, missing (with the remedy) or not found. Lists the Windows
VMs whose BitLocker escrow the plan still marks unconfirmed (set
bitlocker_escrow: confirmed once every recovery key is escrowed).
`+viewHelp("VMs (a VM's status: fail when missing or not found, else its\nworst check)")+`
Its --summary document counts the unconfirmed escrows in
bitlocker_escrow_unconfirmed_count.`, []string{
			"vtpmctl --os-cloud prod plan verify plan.yaml",
			"vtpmctl --os-cloud prod plan verify plan.yaml --match '{vm}-ostack' --host-reports ./reports",
			"vtpmctl --os-cloud prod plan verify plan.yaml --match web01=web01-new -f json --junit verify.xml",
			"vtpmctl --os-cloud prod plan verify plan.yaml --status fail",
			"vtpmctl --os-cloud prod plan verify plan.yaml --summary",
		}, `EXIT STATUS:
   0  every planned VM has its server and everything promised (warnings and skips allowed)
   1  a promise is not kept or a VM has no server; every VM is reported first
   2  usage error, unreadable plan, no cloud`),
		Flags: append([]cli.Flag{
			releaseFlag("nova-release", &o.Release, "Nova `RELEASE`", ""),
			&cli.StringSliceFlag{Name: "match", Usage: "tie VMs to servers: `VM=SERVER` (name or ID) or a template such as {vm}-win or {vcenter}-{vm} (repeatable)", Destination: &o.Match},
			&cli.StringFlag{Name: "host-reports", Usage: "`DIR` of host check JSON reports: confirms each running domain's <tpm> and shows its BitLocker-recovery risk", Destination: &o.HostReports},
			&cli.BoolFlag{Name: "no-secrets", Usage: "skip the Barbican secret check", Destination: &o.NoSecrets},
			&cli.BoolFlag{Name: "no-acls", Usage: "do not read the secrets' ACLs (the SECRET check says so; one request per matched secret saved)", Destination: &o.NoACLs},
			&cli.StringFlag{Name: "nova-service-project", Usage: "`PROJECT` holding deployment-mode secrets (name or ID)", Value: secrets.DefaultServiceProject, Destination: &o.ServiceProject},
			junitFlag(&o.JUnit),
		}, viewFlags(&o.View)...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("plan verify: exactly one PLAN file")
			}
			o.File = cmd.Args().First()
			return runPlanVerify(ctx, o)
		},
	}, summaryOr(&migration.VerifyResult{}, migration.VerifyResult{}.SummaryView()))
}

func runPlanVerify(ctx context.Context, o *planVerifyOptions) error {
	if err := o.View.parse(); err != nil {
		return err
	}
	rules, err := matchRules(o.Match, "SERVER")
	if err != nil {
		return err
	}
	p, err := readPlanFile(o.File)
	if err != nil {
		return err
	}
	warnPlanKeys(o.IO, o.File, p, nil)
	reports, err := readHostReports(o.HostReports)
	if err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	progress, cleared := auditProgress(ctx, o.IO.Err)
	r, rel, err := plan.VerifyCutover(ctx, sess, plan.VerifyRequest{
		Plan: p, Release: nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease}, Rules: rules, Reports: reports,
		NoSecrets: o.NoSecrets, NoACLs: o.NoACLs, ServiceProject: o.ServiceProject,
		Words: planWords{}, Progress: progress,
	})
	cleared()
	if err != nil {
		return err
	}
	warnRelease(o.IO, rel)
	view := o.View.pick(o.Global.Output, &r, func() any { return r.SummaryView() },
		func(f result.Filter) any { v := r.Only(f); return &v })
	if err := output.Write(o.IO.Out, o.Global.Output, view); err != nil {
		return err
	}
	if err := writeJUnit(ctx, o.IO.Out, o.JUnit, "vtpmctl plan verify", r.Suites, fileout.Public); err != nil {
		return err
	}
	if r.Failed() {
		msg := fmt.Sprintf("plan %s: %d missing, %d not found", o.File, r.Missing, r.NotFound)
		if len(r.Incomplete) > 0 {
			msg += "; reads that failed: " + r.Incomplete.String()
		}
		return &reportedError{code: exitFailed, msg: msg}
	}
	return nil
}

// planOptionFlags are the plan commands' flags for the options the
// migration's reasons and remedies point to (migration.Options).
var planOptionFlags = map[advice.Option]string{
	migration.OptionVTPMColumn:     "--vtpm-column",
	migration.OptionMatch:          "--match",
	migration.OptionHostReports:    "--host-reports",
	migration.OptionNoSecrets:      "--no-secrets",
	migration.OptionNoACLs:         "--no-acls",
	migration.OptionServiceProject: "--nova-service-project",
}

// planWords are cliWords with the plan commands' own options.
type planWords struct{ cliWords }

func (w planWords) Option(o advice.Option) string {
	if f, ok := planOptionFlags[o]; ok {
		return f
	}
	return w.cliWords.Option(o)
}
