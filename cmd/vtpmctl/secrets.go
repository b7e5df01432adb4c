package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/barbican"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/internal/result"
	"github.com/vtpmctl/vtpmctl/nova"
)

type secretsAuditOptions struct {
	IO     *IOStreams
	Global *globalOptions

	Projects       []string
	AllProjects    bool
	IncludeOrphans bool
	CleanupPlan    bool
	NoACLs         bool
	// ACLInstances, when non-nil, limits ACL reads to these servers'
	// secrets (plan verify: the matched guests only).
	ACLInstances   map[string]bool
	Concurrency    int
	Release        nova.Release
	ServiceUser    string
	ServiceProject string
	JUnit          string
}

func newSecretsCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &secretsAuditOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:        "secrets",
		Usage:       "audit, and protect, the Barbican secret behind every vTPM guest",
		Description: commandHelp("See vtpmctl secrets audit --help for what is checked and why it matters, and vtpmctl secrets protect --help for what a consumer protects and costs.", []string{"vtpmctl --os-cloud prod secrets audit --all-projects --include-orphans", "vtpmctl --os-cloud prod secrets protect --all-projects --dry-run"}, ""),
		Action:      groupAction,
		Commands: []*cli.Command{{
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
deleted: --cleanup-plan prints the delete commands instead of the report.
No request for a secret's payload can leave vtpmctl.`, []string{
				"vtpmctl --os-cloud prod secrets audit",
				"vtpmctl --os-cloud prod secrets audit --all-projects --include-orphans --junit vtpm-secrets.xml",
				"vtpmctl --os-cloud prod secrets audit --project windows-team -f json",
				"vtpmctl --os-cloud prod secrets audit --all-projects --cleanup-plan > cleanup.sh",
				"vtpmctl --os-cloud prod secrets audit --all-projects -f prometheus > vtpm-secrets.prom",
			}, `EXIT STATUS:
   0  every audited guest passed (warnings allowed), no project was left unaudited,
      and with --include-orphans there is no orphan
   1  a guest failed a check, a project was not auditable, or (--include-orphans) an orphan exists
   2  usage or configuration error`),
			Flags: append([]cli.Flag{
				&cli.StringSliceFlag{Name: "project", Usage: "audit `PROJECT` (name or ID; repeatable); default: the token's project", Destination: &o.Projects},
				&cli.BoolFlag{Name: "all-projects", Usage: "audit every project (admin)", Destination: &o.AllProjects},
				&cli.BoolFlag{Name: "include-orphans", Usage: "list orphan and duplicate secrets, and fail on them", Destination: &o.IncludeOrphans},
				&cli.BoolFlag{Name: "cleanup-plan", Usage: "print the delete commands for orphans (deletes nothing)", Destination: &o.CleanupPlan},
				&cli.BoolFlag{Name: "no-acls", Usage: "do not read each secret's ACL (one request per secret)", Destination: &o.NoACLs},
				&cli.IntFlag{Name: "concurrency", Usage: "`N` projects and lookups at once", Value: 8, Destination: &o.Concurrency},
				&cli.StringFlag{Name: "junit", Usage: "also write JUnit XML to `FILE` (- for stdout; a device such as /dev/null is written, never replaced)", Destination: &o.JUnit},
			}, novaSecretFlags(o)...),
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runSecretsAudit(ctx, o)
			},
		}, newSecretsProtectCommand(g, streams)},
	}
}

func runSecretsAudit(ctx context.Context, o *secretsAuditOptions) error {
	if o.AllProjects && len(o.Projects) > 0 {
		return usagef("secrets audit: --project and --all-projects exclude each other")
	}
	if o.Concurrency < 1 || o.Concurrency > 64 {
		return usagef("--concurrency must be between 1 and 64")
	}
	svc, err := o.Global.services(ctx, needCompute|needImage)
	if err != nil {
		return err
	}
	resolved, err := resolveRelease(ctx, o.IO, "--nova-release", o.Release, svc.compute, false, nil)
	if err != nil {
		return err
	}
	res, secretsURL, err := secretsAudit(ctx, o, svc, resolved.Release, nil)
	if err != nil {
		return err
	}
	if resolved.Ambiguous() {
		res.ReleaseContext = resolved.Context()
	}
	if o.CleanupPlan {
		return printCleanupPlan(o, svc.sess.CloudName, secretsURL, res)
	}
	shown := res
	if !o.IncludeOrphans {
		shown.Orphans = nil
	}
	if err := output.Write(o.IO.Out, o.Global.Output, &shown); err != nil {
		return err
	}
	if err := writeJUnit(o.IO.Out, o.JUnit, "vtpmctl secrets audit", secretsJUnit(res), fileout.Private); err != nil {
		return err
	}
	s := res.Summary
	if s.Failed > 0 || s.NotAuditable > 0 || (o.IncludeOrphans && s.Orphans > 0) {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("secrets audit: %d guest(s) failed, %d project(s) not auditable, %d orphan(s)", s.Failed, s.NotAuditable, s.Orphans)}
	}
	return nil
}

// secretsAudit gathers and audits on a connected session; inv, when
// given, is every project's servers already listed (report lists once).
// It returns the result and the key manager's secrets URL.
func secretsAudit(ctx context.Context, o *secretsAuditOptions, svc *services, rel nova.Release, inv *nova.Inventory) (barbican.Result, string, error) {
	g, err := secretsGather(ctx, o, svc, rel, inv, false)
	if err != nil {
		return barbican.Result{}, "", err
	}
	res := barbican.Audit(g.facts, time.Now())
	if g.apiErr != nil {
		res.ConsumersNotRead = g.apiErr.Error()
	}
	return res, g.secretsURL, nil
}

// gathered is what secretsGather found: the facts, the per-project key
// manager clients the audit used, and the key manager's API.
type gathered struct {
	facts      barbican.Facts
	keyManager func(context.Context, string) (*gophercloud.ServiceClient, error)
	secretsURL string
	apiErr     error // the versions document could not be read: no consumers
}

// secretsGather reads the key manager's API once (its versions
// document), then gathers. needConsumers: a key manager without them is
// an error before anything else is asked (secrets protect).
func secretsGather(ctx context.Context, o *secretsAuditOptions, svc *services, rel nova.Release, inv *nova.Inventory, needConsumers bool) (gathered, error) {
	var out gathered
	sess, computeClient, imageClient := svc.sess, svc.compute, svc.image
	ks, err := sess.Identity()
	if err != nil {
		ks = nil
	}
	km, err := sess.KeyManager()
	if err != nil {
		return out, err
	}
	api, apiErr := barbican.DetectAPI(ctx, km)
	switch {
	case needConsumers && apiErr != nil:
		return out, apiErr
	case needConsumers && !api.HasConsumers():
		return out, &reportedError{code: exitFailed, msg: barbican.ConsumersUnavailable(api)}
	}
	out.apiErr = apiErr
	own, admin, err := sess.TokenProject()
	if err != nil {
		return out, err
	}
	// One project list serves names, --all-projects and the service project.
	var names map[string]string
	var namesErr error
	if ks != nil && admin {
		names, namesErr = barbican.ListProjects(ctx, ks)
	}
	projects := []string{own}
	switch {
	case o.AllProjects:
		if namesErr != nil {
			return out, fmt.Errorf("--all-projects: %w", namesErr)
		}
		if names == nil {
			return out, fmt.Errorf("--all-projects needs to list Keystone projects, which needs the admin role")
		}
		projects = projects[:0]
		for id := range names {
			projects = append(projects, id)
		}
		sort.Strings(projects)
	case len(o.Projects) > 0:
		if projects, err = resolveProjectRefs(ctx, ks, names, o.Projects); err != nil {
			return out, err
		}
	}
	allTenants := inv != nil || admin && (o.AllProjects || len(projects) > 1 || projects[0] != own)
	serviceProject := ""
	for id, n := range names {
		if n == o.ServiceProject || id == o.ServiceProject {
			serviceProject = id
		}
	}
	src := barbican.Sources{Compute: computeClient, Image: imageClient, Identity: ks, Release: rel, AllTenants: allTenants,
		Projects: projects, ReadACLs: !o.NoACLs, ACLInstances: o.ACLInstances, API: api, Limit: o.Concurrency, ServiceUserID: o.ServiceUser, ServiceProject: serviceProject, ProjectNames: names, Inventory: inv,
		KeyManager: onePerProject(func(ctx context.Context, project string) (*gophercloud.ServiceClient, error) {
			if project == own {
				return km, nil
			}
			s, err := sess.ForProject(ctx, project)
			if err != nil {
				return nil, err
			}
			// Same endpoint, other token: no catalog lookup or discovery per project.
			c := *km
			c.ProviderClient = s.Provider
			return &c, nil
		})}
	facts, err := barbican.Gather(withProgress(ctx, o.IO.Err, "auditing projects"), src)
	if err != nil {
		return out, err
	}
	if !allTenants && !(len(projects) == 1 && projects[0] == own) {
		facts.CompleteServers = false
	} else if !allTenants {
		facts.CompleteServers = true // the token's own project: its servers are all listed
	}
	out.facts, out.keyManager = facts, src.KeyManager
	out.secretsURL = strings.TrimRight(km.ResourceBaseURL(), "/") + "/secrets/"
	return out, nil
}

// onePerProject remembers each project's client (or its error): protect
// writes with the tokens the audit got, not a second token per project.
func onePerProject(f func(context.Context, string) (*gophercloud.ServiceClient, error)) func(context.Context, string) (*gophercloud.ServiceClient, error) {
	type entry struct {
		once sync.Once
		c    *gophercloud.ServiceClient
		err  error
	}
	var mu sync.Mutex
	m := map[string]*entry{}
	return func(ctx context.Context, p string) (*gophercloud.ServiceClient, error) {
		mu.Lock()
		e := m[p]
		if e == nil {
			e = &entry{}
			m[p] = e
		}
		mu.Unlock()
		e.once.Do(func() { e.c, e.err = f(ctx, p) })
		return e.c, e.err
	}
}

// resolveProjectRefs maps names or IDs to IDs, locally when the project
// list is at hand.
func resolveProjectRefs(ctx context.Context, ks *gophercloud.ServiceClient, names map[string]string, refs []string) ([]string, error) {
	if names == nil {
		return cloud.ProjectIDs(ctx, ks, refs)
	}
	var out []string
	for _, ref := range refs {
		var match []string
		for id, n := range names {
			if id == ref || n == ref {
				match = append(match, id)
			}
		}
		switch len(match) {
		case 0:
			return nil, usagef("--project: no project named or with ID %q", ref)
		case 1:
			out = append(out, match[0])
		default:
			return nil, usagef("--project: %d projects are named %q; use an ID", len(match), ref)
		}
	}
	return out, nil
}

// printCleanupPlan writes a reviewable shell script; only secrets whose
// instance is gone get a delete line, duplicates a comment (the one in use
// must be found on the host first). Every value in a command is
// shell-quoted and built from what was checked (a UUID, the key manager's
// own endpoint), never from a name or a server-supplied URL; comments have
// no line breaks a name could use to start a command.
func printCleanupPlan(o *secretsAuditOptions, cloudName, secretsURL string, res barbican.Result) error {
	w := o.IO.Out
	fmt.Fprintln(w, "#!/bin/sh")
	fmt.Fprintln(w, "set -eu")
	fmt.Fprintln(w, quote.ShellComment(fmt.Sprintf("vtpmctl secrets audit --cleanup-plan, %s. Review before running.", time.Now().UTC().Format(time.RFC3339))))
	fmt.Fprintln(w, "# Each vTPM secret of a deleted instance; created by, and age, in the comment.")
	var na []string
	for p, why := range res.NotAuditable {
		na = append(na, p+": "+why)
	}
	sort.Strings(na)
	if len(na) > 0 {
		fmt.Fprintln(w, quote.ShellComment(fmt.Sprintf("WARNING: %d project(s) could not be audited; their orphans are not in this plan:", len(na))))
		for _, l := range na {
			fmt.Fprintln(w, quote.ShellComment("  "+l))
		}
	}
	cloudArg := ""
	if cloudName != "" {
		cloudArg = " --os-cloud " + quote.Shell(cloudName)
	}
	n := 0
	for _, or := range res.Orphans {
		if or.Live {
			fmt.Fprintln(w, quote.ShellComment(fmt.Sprintf("not deleted, its server exists: %s (%s)", or.ID, or.Reason)))
			continue
		}
		if strings.HasPrefix(or.Reason, "duplicate") {
			fmt.Fprintln(w, quote.ShellComment(fmt.Sprintf("duplicate, not deleted: %s (instance %s) — check the domain's <encryption secret> first", or.ID, or.InstanceID)))
			continue
		}
		if !barbican.IsUUID(or.ID) || !barbican.IsUUID(or.InstanceID) {
			continue // never a delete line for anything but Nova's own form
		}
		if len(or.Consumers) > 0 {
			// Never forced: a consumer says someone relies on it.
			fmt.Fprintln(w, quote.ShellComment(fmt.Sprintf("protected, not deleted: %s (instance %s gone, %s old) has consumer(s) %s; remove the consumer first if you are sure, then delete it", or.ID, or.InstanceID, or.AgeStr, consumerNames(or.Consumers))))
			continue
		}
		fmt.Fprintln(w, quote.ShellComment(fmt.Sprintf("instance %s gone; created by %s, %s old", or.InstanceID, or.CreatorID, or.AgeStr)))
		if quote.HasControl(cloudName) || quote.HasControl(or.ProjectID) {
			fmt.Fprintln(w, quote.ShellComment("not written: the cloud name or project ID has control characters; delete "+or.ID+" by hand"))
			continue
		}
		fmt.Fprintf(w, "openstack%s --os-project-id %s secret delete %s\n", cloudArg, quote.Shell(or.ProjectID), quote.Shell(secretsURL+or.ID))
		n++
	}
	fmt.Fprintf(o.IO.Err, "vtpmctl: cleanup plan: %d delete command(s); nothing was deleted\n", n)
	if len(na) > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("cleanup plan: %d project(s) could not be audited, so the plan may miss orphans (see its header)", len(na))}
	}
	return nil
}

func consumerNames(cs []barbican.Consumer) string {
	l := make([]string, len(cs))
	for i, c := range cs {
		l[i] = c.String()
	}
	return strings.Join(l, ", ")
}

// secretsJUnit: one suite per project, one case per guest and check.
func secretsJUnit(res barbican.Result) []result.Suite {
	byProject := map[string]*result.Suite{}
	var order []string
	suite := func(p string) *result.Suite {
		if byProject[p] == nil {
			byProject[p] = &result.Suite{Name: "project " + p, Class: "vtpmctl.host.project_" + result.ClassName(p)}
			order = append(order, p)
		}
		return byProject[p]
	}
	for _, g := range res.Guests {
		s := suite(g.ProjectID)
		for _, fd := range g.Findings {
			s.Cases = append(s.Cases, result.Case{Name: g.ServerID + " " + fd.Check, Status: fd.Status, Message: fd.Message, Remedy: fd.Remedy})
		}
	}
	for p, why := range res.NotAuditable {
		s := suite(p)
		s.Cases = append(s.Cases, result.Case{Name: "PROJECT-AUDITABLE", Status: result.Fail, Message: "not auditable: " + why})
	}
	out := make([]result.Suite, 0, len(order))
	for _, p := range order {
		out = append(out, *byProject[p])
	}
	return out
}

type secretsProtectOptions struct {
	secretsAuditOptions
	DryRun  bool
	Servers []string // only these servers' secrets (IDs)
}

func newSecretsProtectCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &secretsProtectOptions{secretsAuditOptions: secretsAuditOptions{IO: streams, Global: g}}
	return &cli.Command{
		Name:  "protect",
		Usage: "register Nova's consumer on each vTPM guest's secret, so it is not deleted by accident",
		Description: commandHelp(`
Deleting a vTPM guest's secret makes its TPM unrecoverable, and Nova registers
no Barbican consumer on it. protect registers the one Nova would name,
service=nova resource_type=instance resource_id=<server uuid>, on each guest's
secret that lacks it (key-manager API 1.1: Barbican 15, Zed, and later), with
a token scoped to the secret's project, as secrets audit reads them. Then the
openstack client (python-barbicanclient 5.5+, 2023.1) refuses "secret delete"
without --force, and a key manager at API 1.2 (Barbican after 2026.1) refuses
a delete asking for 1.2 without ?force=true. An older client deletes it.

The price: Nova deletes the secret itself when the server is deleted, without
force; with python-barbicanclient 5.5+ on the compute hosts that is refused
(by the client, or at API 1.2 by Barbican: seen on 2026.2 as the fault
KeyManagerError "Secret cannot be deleted as it has consumers."): the
server's delete ends in ERROR until the consumer is removed:
  openstack secret consumer delete --service-type-name nova --resource-type instance --resource-id <server> <secret>
Remove it before deleting a protected guest.

Not protected, and said why: a guest with no secret, or with several (only one
is in use), a project that cannot be audited, and every orphan (a secret whose
instance is gone). Reruns write nothing already done. --dry-run writes nothing.`, []string{
			"vtpmctl --os-cloud prod secrets protect --all-projects --dry-run",
			"vtpmctl --os-cloud prod secrets protect --project windows-team",
			"vtpmctl --os-cloud prod secrets protect --project windows-team --server 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11",
			"vtpmctl --os-cloud prod secrets protect --all-projects -f json",
		}, `EXIT STATUS:
   0  every secret that could be protected is (or, with --dry-run, would be)
   1  a write failed, a project was not auditable, or the key manager has no
      consumers (API 1.0: one line says so; nothing was asked beyond its version)
   2  usage or configuration error`),
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "project", Usage: "protect in `PROJECT` (name or ID; repeatable); default: the token's project", Destination: &o.Projects},
			&cli.BoolFlag{Name: "all-projects", Usage: "protect in every project (admin)", Destination: &o.AllProjects},
			&cli.BoolFlag{Name: "dry-run", Usage: "list what would be registered; write nothing", Destination: &o.DryRun},
			&cli.StringSliceFlag{Name: "server", Usage: "only the secret of server `ID` (repeatable); default: every vTPM guest's", Destination: &o.Servers},
			&cli.IntFlag{Name: "concurrency", Usage: "`N` projects, lookups and writes at once", Value: 8, Destination: &o.Concurrency},
		}, novaSecretFlags(&o.secretsAuditOptions)...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return runSecretsProtect(ctx, o)
		},
	}
}

func runSecretsProtect(ctx context.Context, o *secretsProtectOptions) error {
	if o.AllProjects && len(o.Projects) > 0 {
		return usagef("secrets protect: --project and --all-projects exclude each other")
	}
	if o.Concurrency < 1 || o.Concurrency > 64 {
		return usagef("--concurrency must be between 1 and 64")
	}
	var only map[string]bool
	for _, id := range o.Servers {
		if !barbican.IsUUID(id) {
			return usagef("--server: %q is not a server ID (a UUID)", id)
		}
		if only == nil {
			only = map[string]bool{}
		}
		only[strings.ToLower(id)] = true
	}
	o.NoACLs = true // protect needs no ACL
	svc, err := o.Global.services(ctx, needCompute|needImage)
	if err != nil {
		return err
	}
	resolved, err := resolveRelease(ctx, o.IO, "--nova-release", o.Release, svc.compute, false, nil)
	if err != nil {
		return err
	}
	g, err := secretsGather(ctx, &o.secretsAuditOptions, svc, resolved.Release, nil, true)
	if err != nil {
		return err
	}
	plan := barbican.PlanProtect(g.facts, barbican.Audit(g.facts, time.Now()), o.DryRun, only)
	if !o.DryRun {
		barbican.Protect(withProgress(ctx, o.IO.Err, "registering consumers"), &plan, g.keyManager, o.Concurrency)
	}
	if err := output.Write(o.IO.Out, o.Global.Output, &plan); err != nil {
		return err
	}
	if s := plan.Summary; s.Failed > 0 || len(plan.NotAuditable) > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("secrets protect: %d write(s) failed, %d project(s) not auditable", s.Failed, len(plan.NotAuditable))}
	}
	return nil
}

// novaSecretFlags are what audit and protect both need to know of Nova:
// its release and the service user that owns deployment-mode secrets.
func novaSecretFlags(o *secretsAuditOptions) []cli.Flag {
	return []cli.Flag{
		releaseFlag("nova-release", &o.Release, "Nova `RELEASE`", ""),
		&cli.StringFlag{Name: "nova-service-user", Usage: "Nova's service `USER_ID` (owner of deployment-mode secrets)", Destination: &o.ServiceUser},
		&cli.StringFlag{Name: "nova-service-project", Usage: "`PROJECT` of Nova's service user (name or ID)", Value: "service", Destination: &o.ServiceProject},
	}
}
