package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"
	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

type secretsAuditOptions struct {
	IO     *IOStreams
	Global *globalOptions

	Projects       []string
	AllProjects    bool
	IncludeOrphans bool
	CleanupPlan    bool
	NoACLs         bool
	Concurrency    int
	Release        nova.Release
	ServiceUser    string
	ServiceProject string
	JUnit          string
	View           viewOptions
}

// secretsError names this command's flags for what the service found
// missing.
func secretsError(err error) error {
	var scope *secrets.ScopeError
	var ref *secrets.ProjectRefError
	var cons *secrets.ConsumersUnavailableError
	switch {
	case errors.As(err, &scope):
		return fmt.Errorf("--all-projects: %w", err)
	case errors.As(err, &ref):
		return usagef("--project: %w", err)
	case errors.As(err, &cons):
		return &reportedError{code: exitFailed, msg: cons.Error()}
	}
	return err
}

// novaSecretFlags are what audit and protect both need to know of Nova:
// its release and the service user that owns deployment-mode secrets.
func novaSecretFlags(o *secretsAuditOptions) []cli.Flag {
	return []cli.Flag{
		releaseFlag("nova-release", &o.Release, "Nova `RELEASE`", ""),
		&cli.StringFlag{Name: "nova-service-user", Usage: "Nova's service `USER_ID` (owner of deployment-mode secrets)", Destination: &o.ServiceUser},
		&cli.StringFlag{Name: "nova-service-project", Usage: "`PROJECT` of Nova's service user (name or ID)", Value: secrets.DefaultServiceProject, Destination: &o.ServiceProject},
	}
}

type secretsProtectOptions struct {
	secretsAuditOptions
	DryRun  bool
	Yes     bool     // a bulk write without asking
	Servers []string // only these servers' secrets (IDs)
}

// secretsScope words which secrets a protect or unprotect run is about,
// for the refusal's one line.
func secretsScope(all bool, projects, servers []string) string {
	where := "the token's project"
	switch {
	case all:
		where = "every project"
	case len(projects) > 0:
		where = fmt.Sprintf("%d project(s)", len(projects))
	}
	if len(servers) > 0 {
		return fmt.Sprintf("%d server(s) in %s", len(servers), where)
	}
	return "every vTPM guest in " + where
}

// consumerRequest is the protect or unprotect use case's request: the
// audit's scope from the flags, the gate's question (question has a %d
// for the count) asked before the first write, the writes' progress
// drawn under label.
func (o *secretsProtectOptions) consumerRequest(ctx context.Context, only map[string]bool, gate writeGate, label, question string) (secrets.ConsumerRequest, func()) {
	report, clear := auditProgress(ctx, o.IO.Err)
	req := secrets.ConsumerRequest{Audit: o.request(), Only: only, DryRun: o.DryRun, Concurrency: o.Concurrency,
		Writing: func(ctx context.Context) context.Context { clear(); return withProgress(ctx, o.IO.Err, label) }}
	req.Audit.Progress = report
	if gate.needed() {
		req.Confirm = func(ctx context.Context, would []vtpmsecret.ProtectAction) error {
			clear()
			return gate.ask(ctx, secretLines(would), fmt.Sprintf(question, len(would)))
		}
	}
	return req, clear
}

// secretLines are the secrets a write would change, one line each, for
// the terminal's confirmation.
func secretLines(rows []vtpmsecret.ProtectAction) []string {
	out := make([]string, 0, len(rows))
	for _, a := range rows {
		srv := a.ServerID
		if a.ServerName != "" {
			srv = a.ServerName + " (" + a.ServerID + ")"
		}
		out = append(out, fmt.Sprintf("%s: secret %s in project %s", srv, a.SecretID, a.ProjectID))
	}
	return out
}

// consumerFlagWords are the usages protect and unprotect word their own way.
type consumerFlagWords struct{ dryRun, yes, server string }

// consumerFlags are the options protect and unprotect share, in verb's
// words (--project, --all-projects, --dry-run, --yes, --server,
// --concurrency, and Nova's).
func (o *secretsProtectOptions) consumerFlags(verb string, w consumerFlagWords) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringSliceFlag{Name: "project", Usage: verb + " in `PROJECT` (name or ID; repeatable); default: the token's project", Destination: &o.Projects},
		&cli.BoolFlag{Name: "all-projects", Usage: verb + " in every project (admin)", Destination: &o.AllProjects},
		&cli.BoolFlag{Name: "dry-run", Usage: w.dryRun, Destination: &o.DryRun},
		&cli.BoolFlag{Name: "yes", Usage: w.yes, Destination: &o.Yes},
		&cli.StringSliceFlag{Name: "server", Usage: w.server, Destination: &o.Servers},
		concurrencyFlag(&o.Concurrency),
	}, novaSecretFlags(&o.secretsAuditOptions)...)
}

// validate checks what protect and unprotect share, before any request,
// and returns --server's IDs (nil: every guest's).
func (o *secretsProtectOptions) validate(command string) (map[string]bool, error) {
	if o.AllProjects && len(o.Projects) > 0 {
		return nil, usagef("%s: --project and --all-projects exclude each other", command)
	}
	if o.Concurrency < 1 || o.Concurrency > 64 {
		return nil, usagef("--concurrency must be between 1 and 64")
	}
	return serverSet(o.Servers)
}

// serverSet is --server's IDs, lower-cased (nil: none given).
func serverSet(ids []string) (map[string]bool, error) {
	var only map[string]bool
	for _, id := range ids {
		if !vtpmsecret.IsUUID(id) {
			return nil, usagef("--server: %q is not a server ID (a UUID)", id)
		}
		if only == nil {
			only = map[string]bool{}
		}
		only[strings.ToLower(id)] = true
	}
	return only, nil
}

// concurrencyFlag is --concurrency of every command that takes it: the
// requests in flight at once, across everything the command reads and
// writes.
func concurrencyFlag(dst *int) cli.Flag {
	return &cli.IntFlag{Name: "concurrency", Value: secrets.DefaultConcurrency, Destination: dst,
		Usage: "at most `N` requests in flight at once (1–64), whatever they are for: projects, pages, ACL reads, lookups and writes share them. " +
			"The default suits a cloud with a few API workers per service. Where each request costs tens of milliseconds (Barbican, Keystone tokens) " +
			"and the services run more workers behind a load balancer, 16–32 shortens a large audit several times over. " +
			"A 429 or 503 from the cloud halves the number for the run, and answers that follow raise it again, never above N"}
}

// consumersMade words, for an interruption's line, the secrets protect
// or unprotect wrote (action done) before the run stopped, by server,
// and those planned or failed ("" for a dry run or no write).
func consumersMade(rows []vtpmsecret.ProtectAction, dryRun bool, done, planned vtpmsecret.Act, verb string) string {
	if dryRun {
		return ""
	}
	var made, rest []string
	for _, a := range rows {
		name := a.ServerName
		if name == "" {
			name = a.ServerID
		}
		switch a.Action {
		case done:
			made = append(made, name)
		case planned, vtpmsecret.ActFailed:
			rest = append(rest, name)
		}
	}
	return madeList(verb, made, rest, "not confirmed")
}
