package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// unprotectHint is the command that removes a guest's consumer, for
// protect's output (the service knows no flag).
const unprotectHint = "vtpmctl secrets unprotect --server <server id>"

func newSecretsProtectCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &secretsProtectOptions{secretsAuditOptions: secretsAuditOptions{IO: streams, Global: g}}
	return withResult(&cli.Command{
		Name:  "protect",
		Usage: "register Nova's consumer on each vTPM guest's secret, so it is not deleted by accident",
		Description: commandHelp(`
Deleting a vTPM guest's secret makes its TPM unrecoverable, and Nova registers
no Barbican consumer on it. protect registers the one Nova would name,
service=nova resource_type=instance resource_id=<server uuid>, on each guest's
secret that lacks it (key-manager API 1.1: Barbican 15, Zed, and later), with
a token scoped to the secret's project, as secrets audit reads them. Then the
openstack client (python-barbicanclient 5.5+, 2023.1) refuses "secret delete"
without --force, and a key manager at API 1.2 (Barbican 23, 2026.2, and
later) refuses a delete asking for 1.2 without ?force=true. An older client
deletes it.

The price: Nova deletes the secret itself when the server is deleted, without
force; with python-barbicanclient 5.5+ on the compute hosts that is refused
(by the client, or at API 1.2 by Barbican: seen with Barbican 23.0.0 as the
fault KeyManagerError "Secret cannot be deleted as it has consumers."): the
server's delete ends in ERROR until the consumer is removed:
  vtpmctl secrets unprotect --server <server>
  (or: openstack secret consumer delete --service-type-name nova --resource-type instance --resource-id <server> <secret>)
Remove it before deleting a protected guest; the output says so too.

--all-projects, several projects or several servers are a bulk write: --yes
writes, a terminal is shown the secrets and asked, and without one the
command is refused before any cloud is asked.

Not protected, and said why: a guest with no secret, or with several (only one
is in use), a project that cannot be audited, and every orphan (a secret whose
instance is gone). Reruns write nothing already done. --dry-run writes nothing.`, []string{
			"vtpmctl --os-cloud prod secrets protect --all-projects --dry-run",
			"vtpmctl --os-cloud prod secrets protect --project windows-team",
			"vtpmctl --os-cloud prod secrets protect --project windows-team --server 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11",
			"vtpmctl --os-cloud prod secrets protect --all-projects --yes -f json",
		}, `EXIT STATUS:
   0  every secret that could be protected is (or, with --dry-run, would be)
   1  a write failed, a project was not auditable, a --server is no vTPM guest
      there, or the key manager has no consumers (API 1.0: one line says so;
      nothing was asked beyond its version)
   2  usage or configuration error`),
		Flags: o.consumerFlags("protect", consumerFlagWords{dryRun: "list what would be registered; write nothing",
			yes: "write in several projects (or for several servers) without asking", server: "only the secret of server `ID` (repeatable); default: every vTPM guest's"}),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return runSecretsProtect(ctx, o)
		},
	}, prints(&vtpmsecret.ProtectResult{}))
}

func runSecretsProtect(ctx context.Context, o *secretsProtectOptions) error {
	only, err := o.validate("secrets protect")
	if err != nil {
		return err
	}
	gate := writeGate{streams: o.IO, command: "secrets protect", yes: o.Yes, dryRun: o.DryRun,
		bulk: o.AllProjects || len(o.Projects) > 1 || len(o.Servers) > 1, what: "register Nova's consumer on the secrets of " + secretsScope(o.AllProjects, o.Projects, o.Servers)}
	if err := gate.check(); err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	sess.SetConcurrency(o.Concurrency)
	req, clear := o.consumerRequest(ctx, only, gate, "registering consumers", "register Nova's consumer on these %d secret(s)")
	plan, rel, err := secrets.ProtectGuests(ctx, sess, req)
	clear()
	warnRelease(o.IO, rel)
	if err != nil {
		return secretsError(err)
	}
	if s := plan.Summary; s.Registered+s.WouldRegister+s.Already > 0 {
		plan.BeforeDelete = unprotectHint
	}
	if err := output.Write(o.IO.Out, o.Global.Output, &plan); err != nil {
		return withWritesMade(err, func() string {
			return consumersMade(plan.Secrets, plan.DryRun, vtpmsecret.ActRegistered, vtpmsecret.ActWouldRegister, "guest secret(s) protected")
		})
	}
	if s := plan.Summary; s.Failed > 0 || len(plan.NotAuditable) > 0 || len(plan.Unmatched) > 0 {
		msg := fmt.Sprintf("secrets protect: %d write(s) failed, %d project(s) not auditable", s.Failed, len(plan.NotAuditable))
		if n := len(plan.Unmatched); n > 0 {
			msg += fmt.Sprintf("; --server: %d server(s) are no vTPM guest in the audited projects and no secret names them: %s", n, strings.Join(plan.Unmatched, ", "))
		}
		return &reportedError{code: exitFailed, msg: msg}
	}
	return nil
}
