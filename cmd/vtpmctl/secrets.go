package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

func newSecretsCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &secretsAuditOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:        "secrets",
		Usage:       "audit, and protect, the Barbican secret behind every vTPM guest",
		Description: commandHelp("See vtpmctl secrets audit --help for what is checked and why it matters, and vtpmctl secrets protect --help for what a consumer protects and costs.", []string{"vtpmctl --os-cloud prod secrets audit --all-projects --include-orphans", "vtpmctl --os-cloud prod secrets protect --all-projects --dry-run"}, ""),
		Action:      groupAction,
		// -f prometheus too: the audit's Result has Gauges (barbican/metrics.go).
		Commands: []*cli.Command{withResult(withFormats(&cli.Command{
			Name:  "audit",
			Usage: "does every vTPM guest have exactly one valid secret, owned right — and which secrets are orphans?",
			Description: commandHelp(`
A vTPM guest's TPM state is encrypted with a passphrase Nova keeps in Barbican
as "vTPM secret for instance <uuid>", created with the token of whoever booted
(or resized) the server. If that secret is gone, expiring, owned by someone
else or private to an owner who has left, the guest will not start again, an
admin cannot move it, and its BitLocker keys are as good as lost.

For each vTPM guest (servers listed in pages of 1000 with their flavor's extra
specs; image properties from one image list; Nova's rules decide):
  SECRET-EXISTS   the secret is in the guest's project (deployment mode: Nova's service project)
  SECRET-UNIQUE   exactly one
  SECRET-PROJECT  not in some other project (an admin's resize puts it there)
  SECRET-OWNER    creator is the server's user (deployment mode: Nova's service user)
  SECRET-STATE    ACTIVE passphrase without expiration
  OWNER-VALID     the creator still exists, is enabled, has a role in the project
  SECRET-ACL      project-access is not turned off
  SECRET-CONSUMER whether a consumer nova/instance/<server> protects it (none is
                  counted, not warned: protection also stops Nova's own delete;
                  warn: one naming another or a deleted server; key-manager API
                  1.1+, read from the list: no request per secret; see secrets protect)
and the guest's operational facts: what Nova refuses for it, whether it
resumes after a host reboot, that snapshots carry no TPM state.

Barbican lists only the token's own project: each project is audited with a
token scoped to it, from the same clouds.yaml credentials. A project the
caller cannot list is reported as not auditable, with the reason. Orphans are
vTPM secrets whose instance no longer exists, and duplicates. Nothing is
deleted: --cleanup-plan prints the delete commands instead of the report
(a shell script to review; with -f, the plan's steps as json, yaml, a table…).
A secret whose instance is missing from a partial read (the token's own
project, a down cell, a truncated list) is undetermined, never an orphan.
A key manager the catalog lists under other regions too holds their guests'
secrets: each such region's servers are listed once, a secret whose instance
one lists is that region's live guest, and an instance none lists is an
orphan only when every region's list was complete (undetermined otherwise,
naming the region). The plan writes a delete only where Nova's
GET /servers/{uuid} answered 404 to an admin with every cell up (in each
such region), and says in its header what it proved.
No request for a secret's payload can leave vtpmctl.
`+viewHelp("guests (a guest's status: its worst finding)"), []string{
				"vtpmctl --os-cloud prod secrets audit",
				"vtpmctl --os-cloud prod secrets audit --all-projects --include-orphans --junit vtpm-secrets.xml",
				"vtpmctl --os-cloud prod secrets audit --project windows-team -f json",
				"vtpmctl --os-cloud prod secrets audit --all-projects --cleanup-plan > cleanup.sh",
				"vtpmctl --os-cloud prod secrets audit --all-projects -f prometheus > vtpm-secrets.prom",
				"vtpmctl --os-cloud prod secrets audit --all-projects --summary",
				"vtpmctl --os-cloud prod secrets audit --all-projects --status fail,warn",
			}, `EXIT STATUS:
   0  every audited guest passed (warnings allowed), no project was left unaudited,
      and with --include-orphans there is no orphan
   1  a guest failed a check, a project was not auditable, a read was partial (a down
      cell, a truncated project list, another region's server list), or
      (--include-orphans) an orphan exists
   2  usage or configuration error`),
			Flags: append([]cli.Flag{
				&cli.StringSliceFlag{Name: "project", Usage: "audit `PROJECT` (name or ID; repeatable); default: the token's project", Destination: &o.Projects},
				&cli.BoolFlag{Name: "all-projects", Usage: "audit every project (admin)", Destination: &o.AllProjects},
				&cli.BoolFlag{Name: "include-orphans", Usage: "list orphan and duplicate secrets, and fail on them", Destination: &o.IncludeOrphans},
				&cli.BoolFlag{Name: "cleanup-plan", Usage: "print the delete commands for orphans (deletes nothing)", Destination: &o.CleanupPlan},
				&cli.BoolFlag{Name: "no-acls", Usage: "do not read each secret's ACL (one request per secret)", Destination: &o.NoACLs},
				concurrencyFlag(&o.Concurrency),
				junitFlag(&o.JUnit),
			}, append(viewFlags(&o.View), novaSecretFlags(o)...)...),
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runSecretsAudit(ctx, o)
			},
		}, metricsFormats...), secretsAuditResult), newSecretsProtectCommand(g, streams), newSecretsUnprotectCommand(g, streams), newSecretsModePlanCommand(g, streams)},
	}
}

func runSecretsAudit(ctx context.Context, o *secretsAuditOptions) error {
	if o.AllProjects && len(o.Projects) > 0 {
		return usagef("secrets audit: --project and --all-projects exclude each other")
	}
	if o.Concurrency < 1 || o.Concurrency > 64 {
		return usagef("--concurrency must be between 1 and 64")
	}
	if err := o.View.parse(); err != nil {
		return err
	}
	if o.CleanupPlan && o.View.set() {
		return usagef("--cleanup-plan is a plan of its own: --summary and --status do not apply")
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	sess.SetConcurrency(o.Concurrency)
	req := o.request()
	// Every format walks the guests' results, audited again on each walk,
	// instead of holding 500,000 of them (~1.2 KB each): JSON and YAML
	// write each once, a table walks them twice (widths, then lines),
	// value, CSV, metrics and --junit once. The cleanup plan holds them.
	req.Stream = !o.CleanupPlan
	a, err := auditSecrets(ctx, o.IO.Err, sess, req)
	if err != nil {
		return secretsError(err)
	}
	warnRelease(o.IO, a.Release)
	res := a.Result
	// The table's footer says what the audit could not see; other
	// formats carry it in "warnings", and the terminal is told too.
	if o.Global.Output.Format != "table" || o.CleanupPlan {
		for _, w := range res.Warnings {
			warn(o.IO, "%s", w)
		}
	}
	if o.CleanupPlan {
		plan, err := secrets.PlanCleanup(ctx, sess, a, o.Concurrency)
		if err != nil {
			return err
		}
		return writeCleanupPlan(o, plan)
	}
	shown := res
	if !o.IncludeOrphans {
		shown.Orphans = nil
	}
	view := o.View.pick(o.Global.Output, &shown, func() any { return shown.SummaryView() },
		func(f result.Filter) any { r := shown.Only(f); return &r })
	if err := output.Write(o.IO.Out, o.Global.Output, view); err != nil {
		return err
	}
	if err := writeJUnit(ctx, o.IO.Out, o.JUnit, "vtpmctl secrets audit", func() []result.Suite { return secretsJUnit(res) }, fileout.Private); err != nil {
		return err
	}
	s := res.Summary
	partial := res.Incomplete.Failures()
	if s.Failed > 0 || s.NotAuditable > 0 || (o.IncludeOrphans && s.Orphans > 0) || len(partial) > 0 {
		msg := fmt.Sprintf("secrets audit: %d guest(s) failed, %d project(s) not auditable, %d orphan(s)", s.Failed, s.NotAuditable, s.Orphans)
		if len(partial) > 0 {
			msg += "; partial reads: " + partial.String()
		}
		return &reportedError{code: exitFailed, msg: msg}
	}
	return nil
}

// request maps audit's and protect's flags to the service's request.
func (o *secretsAuditOptions) request() secrets.AuditRequest {
	return secrets.AuditRequest{
		Release:  nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease},
		Projects: o.Projects, AllProjects: o.AllProjects,
		ServiceProject: o.ServiceProject, ServiceUser: o.ServiceUser,
		Concurrency: o.Concurrency, ReadACLs: !o.NoACLs,
	}
}

// secretsFlag is this command's flag for what the audit says the user
// could give (the audit names none; Result.Name puts these in).
func secretsFlag(h vtpmsecret.Hint) string {
	switch h {
	case vtpmsecret.HintScope:
		return "--all-projects or --project"
	case vtpmsecret.HintServiceProject:
		return "--nova-service-project"
	case vtpmsecret.HintServiceUser:
		return "--nova-service-user"
	case vtpmsecret.HintCleanupPlan:
		return "--cleanup-plan"
	case vtpmsecret.HintProtect:
		return "vtpmctl secrets protect"
	}
	return ""
}

// writeCleanupPlan: the reviewable shell script unless -f was given;
// then the plan as any other result.
func writeCleanupPlan(o *secretsAuditOptions, plan vtpmsecret.CleanupPlan) error {
	if o.Global.Output.Explicit {
		if err := output.Write(o.IO.Out, o.Global.Output, &plan); err != nil {
			return err
		}
	} else if err := stillPublishing(o.Global.Output); err != nil {
		return err
	} else if err := plan.Script(o.IO.Out, "vtpmctl secrets audit --cleanup-plan"); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Err, "vtpmctl: cleanup plan: %d delete command(s); nothing was deleted\n", plan.Deletes())
	var why []string
	if n := len(plan.NotAuditable); n > 0 {
		why = append(why, fmt.Sprintf("%d project(s) could not be audited, so the plan may miss orphans", n))
	}
	if n := plan.Proof.Undetermined; n > 0 {
		why = append(why, fmt.Sprintf("%d secret(s) undetermined: Nova could not prove their instance gone", n))
	}
	if f := plan.Proof.Incomplete.Failures(); len(f) > 0 {
		why = append(why, "partial reads: "+f.String())
	}
	if len(why) > 0 {
		return &reportedError{code: exitFailed, msg: "cleanup plan: " + strings.Join(why, "; ") + " (see its header)"}
	}
	return nil
}

// secretsJUnit: one suite per project, one case per guest and check.
func secretsJUnit(res vtpmsecret.Result) []result.Suite {
	byProject := map[string]*result.Suite{}
	var order []string
	suite := func(p string) *result.Suite {
		if byProject[p] == nil {
			byProject[p] = &result.Suite{Name: "project " + p, Class: "vtpmctl.host.project_" + result.ClassName(p)}
			order = append(order, p)
		}
		return byProject[p]
	}
	for g := range res.EachGuest {
		s := suite(g.ProjectID)
		for _, fd := range g.Findings {
			s.Cases = append(s.Cases, result.Case{Name: g.ServerID + " " + string(fd.Check), Status: fd.Status, Message: fd.Message, Remedy: fd.Remedy})
		}
	}
	for p, why := range res.NotAuditable {
		s := suite(p)
		s.Cases = append(s.Cases, result.Case{Name: string(vtpmsecret.CheckProjectAuditable), Status: result.Fail, Message: "not auditable: " + why.String()})
	}
	out := make([]result.Suite, 0, len(order))
	for _, p := range order {
		out = append(out, *byProject[p])
	}
	return out
}

// auditSecrets is secrets.AuditSecrets with its progress drawn on w
// (stderr) while it runs, requests done of those known, and cleared when
// it returns.
func auditSecrets(ctx context.Context, w io.Writer, sess *cloud.Session, req secrets.AuditRequest) (secrets.Audited, error) {
	var clear func()
	req.Progress, clear = auditProgress(ctx, w)
	defer clear()
	a, err := secrets.AuditSecrets(ctx, sess, req)
	a.Result.Name(secretsFlag)
	return a, err
}
