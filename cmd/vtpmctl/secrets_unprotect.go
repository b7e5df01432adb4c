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

// newSecretsUnprotectCommand is "secrets unprotect", protect's inverse:
// the same options, read the same way (one audit of the projects' secrets
// and their consumers), and a DELETE of Nova's consumer per secret.
func newSecretsUnprotectCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &secretsProtectOptions{secretsAuditOptions: secretsAuditOptions{IO: streams, Global: g}}
	return withResult(&cli.Command{
		Name:  "unprotect",
		Usage: "remove Nova's consumer from a vTPM guest's secret, so the guest can be deleted",
		Description: commandHelp(`
A secret protected by secrets protect carries the consumer service=nova
resource_type=instance resource_id=<server uuid>. Nova deletes a guest's secret
when the guest is deleted, and with python-barbicanclient 5.5+ on the compute
hosts (or a key manager at API 1.2) that delete is refused while a consumer is
left: the server's delete ends in ERROR. unprotect removes Nova's consumer
(DELETE …/secrets/<id>/consumers at key-manager API 1.1, with a token scoped to
the secret's project) from every vTPM secret named for the server: its
secret, a duplicate, an orphan's. A consumer of anything else stays, and the
row says the delete is still refused while it does.

Run it right before deleting the guest: until then the secret can be deleted
by accident again. Reruns write nothing already done. --dry-run writes
nothing. Anything but one --server is a bulk write (it unprotects many
guests): --yes writes, a terminal is shown the secrets and asked, and without
one the command is refused before any cloud is asked.`, []string{
			"vtpmctl --os-cloud prod secrets unprotect --server 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11",
			"vtpmctl --os-cloud prod secrets unprotect --project windows-team --server 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11 -f json",
			"vtpmctl --os-cloud prod secrets unprotect --project windows-team --dry-run",
			"vtpmctl --os-cloud prod secrets unprotect --all-projects --yes",
		}, `EXIT STATUS:
   0  no secret of the servers asked for carries Nova's consumer any more (or,
      with --dry-run, none would)
   1  a write failed, a project was not auditable, a --server has no vTPM secret
      there, the key manager has no consumers (API 1.0), or the confirmation
      was declined
   2  usage or configuration error, or a bulk write without --yes and no terminal`),
		Flags: o.consumerFlags("unprotect", consumerFlagWords{dryRun: "list what would be removed; write nothing",
			yes: "remove without asking (anything but one --server)", server: "only the secrets of server `ID` (repeatable); default: every vTPM secret's"}),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return runSecretsUnprotect(ctx, o)
		},
	}, prints(&vtpmsecret.UnprotectResult{}))
}

func runSecretsUnprotect(ctx context.Context, o *secretsProtectOptions) error {
	only, err := o.validate("secrets unprotect")
	if err != nil {
		return err
	}
	// Removing protection is the riskier way: only one named server
	// goes without asking.
	gate := writeGate{streams: o.IO, command: "secrets unprotect", yes: o.Yes, dryRun: o.DryRun, bulk: len(only) != 1,
		what: "remove Nova's consumer from the secrets of " + secretsScope(o.AllProjects, o.Projects, o.Servers)}
	if err := gate.check(); err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	sess.SetConcurrency(o.Concurrency)
	req, clear := o.consumerRequest(ctx, only, gate, "removing consumers", "remove Nova's consumer from these %d secret(s)")
	plan, rel, err := secrets.UnprotectGuests(ctx, sess, req)
	clear()
	warnRelease(o.IO, rel)
	if err != nil {
		return secretsError(err)
	}
	if err := output.Write(o.IO.Out, o.Global.Output, &plan); err != nil {
		return withWritesMade(err, func() string {
			return consumersMade(plan.Secrets, plan.DryRun, vtpmsecret.ActRemoved, vtpmsecret.ActWouldRemove, "guest secret(s) unprotected")
		})
	}
	if s := plan.Summary; s.Failed > 0 || len(plan.NotAuditable) > 0 || len(plan.Unmatched) > 0 {
		msg := fmt.Sprintf("secrets unprotect: %d write(s) failed, %d project(s) not auditable", s.Failed, len(plan.NotAuditable))
		if n := len(plan.Unmatched); n > 0 {
			msg += fmt.Sprintf("; --server: %d server(s) have no vTPM secret in the audited projects: %s", n, strings.Join(plan.Unmatched, ", "))
		}
		return &reportedError{code: exitFailed, msg: msg}
	}
	return nil
}
