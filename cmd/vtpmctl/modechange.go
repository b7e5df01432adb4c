package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

type modePlanOptions struct {
	IO     *IOStreams
	Global *globalOptions

	Server      string
	Project     string
	AllProjects bool
	To          string
	Release     nova.Release
}

// newSecretsModePlanCommand is "secrets mode-plan": the mode is the
// secret's (who owns it, where libvirt keeps it), so it sits with audit
// and protect; "plan" because it only says what a resize would do, as
// "plan" does for flavors and images.
func newSecretsModePlanCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &modePlanOptions{IO: streams, Global: g}
	return withResult(&cli.Command{
		Name:  "mode-plan",
		Usage: "can a vTPM guest move to secret security mode host or deployment, with which flavor, and what happens to its secret?",
		Description: commandHelp(`
Nova 33 (2026.1) added hw:tpm_secret_security: user (the default: nothing
kept on the host, no restart after a host reboot without the owner), host (a
persistent libvirt secret on the host: survives reboots, live-migrates) and
deployment (the secret owned by Nova's service user). The only way Nova offers
to change a guest's mode is a resize to a flavor with the other mode. Nothing
is resized here: for each vTPM guest this says, per Nova's code
(compute/api.py API._validate_vtpm_secret_security, the libvirt driver's
_finish_migration_vtpm and _get_or_create_secret_for_vtpm, crypto.py):

  user <-> host      allowed. The same Barbican secret is kept (no new one,
                     none deleted) and the TPM state moves with the disks,
                     if the target flavor gives the same TPM version and
                     model (otherwise Nova deletes the state). Both ways the
                     resize caller's token must read the owner's secret (the
                     destination has no libvirt secret yet); to host, the
                     destination defines its persistent libvirt secret from it.
  to/from deployment refused by Nova before anything is touched: "Resize
                     between 'deployment' TPM secret security and other TPM
                     secret security modes is not supported."

The target flavors are the catalog's flavors with the same TPM version and
model (with the server's image properties), the target mode, and no smaller
vCPUs, RAM or disk. Where none exists, the vtpmctl flavor create line that
makes one is printed. Before Nova 33 the answer is one line: the release has
no modes. One flavor list and one server list (1000 a page); --server picks
one server of the list (with --all-projects, of every project's); --project
takes a project name or ID.`, []string{
			"vtpmctl --os-cloud prod secrets mode-plan --server 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11 --to host",
			"vtpmctl --os-cloud prod secrets mode-plan --all-projects --to host -f csv > to-host.csv",
			"vtpmctl --os-cloud prod secrets mode-plan --project 0c4e939acacf4376bdcd1129f1a054ad --to deployment -f json",
		}, `EXIT STATUS:
   0  the plan is printed and every guest can reach the mode (or is in it)
   1  some guest cannot reach it now: Nova refuses the resize, no fitting
      flavor exists yet (the create line is printed), or the release has no
      secret security modes
   2  usage or configuration error, unknown server`),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Usage: "target `MODE`: host or deployment (or user)", Destination: &o.To},
			&cli.StringFlag{Name: "server", Usage: "only server `ID`", Destination: &o.Server},
			&cli.StringFlag{Name: "project", Usage: "only the vTPM guests of `PROJECT` (name or ID; admin)", Destination: &o.Project},
			&cli.BoolFlag{Name: "all-projects", Usage: "every project's vTPM guests (admin)", Destination: &o.AllProjects},
			releaseFlag("nova-release", &o.Release, "Nova `RELEASE` whose rules apply", ""),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return runModePlan(ctx, o)
		},
	}, prints(&secrets.ModeChangeResult{}))
}

func runModePlan(ctx context.Context, o *modePlanOptions) error {
	to := nova.SecretMode(o.To)
	if o.To == "" {
		return usagef("secrets mode-plan: --to is required (host or deployment)")
	}
	if !to.Known() {
		modes := make([]string, len(nova.SecretModes))
		for i, m := range nova.SecretModes {
			modes[i] = string(m)
		}
		return usagef("--to %q: not a secret security mode (%s)", o.To, choiceHint(strings.ToLower(o.To), modes))
	}
	if o.Project != "" && o.AllProjects {
		return usagef("secrets mode-plan: --project and --all-projects exclude each other")
	}
	if o.Server != "" && !vtpmsecret.IsUUID(o.Server) {
		return usagef("--server: %q is not a server ID (a UUID)", o.Server)
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := secrets.ModeChange(ctx, sess, secrets.ModeChangeRequest{ServerID: strings.ToLower(o.Server), AllProjects: o.AllProjects,
		Project: o.Project, To: to, Release: nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease}})
	if err != nil {
		return err
	}
	warnRelease(o.IO, res.Release)
	for i := range res.Servers {
		wordNewFlavor(&res.Servers[i].ModeChangePlan)
	}
	if err := output.Write(o.IO.Out, o.Global.Output, &res); err != nil {
		return err
	}
	if res.NoModes != "" {
		return &reportedError{code: exitFailed, msg: "secrets mode-plan: no guest can change mode on this release"}
	}
	if n := res.Unreached(); n > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("secrets mode-plan: %d of %d guest(s) cannot reach mode %s now", n, len(res.Servers), to)}
	}
	return nil
}
