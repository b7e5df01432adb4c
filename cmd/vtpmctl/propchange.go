package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
)

// propertyChange is what image set|unset and volume set|unset share: the
// vTPM/Windows request, its selection, the flags that fill it and the
// checks made before any request. One copy, so the two nouns cannot drift
// apart.
type propertyChange struct {
	Set     bool // set, or unset
	Select  []string
	Version string
	Model   string
	Windows bool
	DryRun  bool
	Yes     bool // write a bulk change without asking
	Release nova.Release
}

// command is `NOUN set` or `NOUN unset`, as p.Set says. what names the
// arguments (IMAGE), selectUsage words --select for the noun, extra are
// the noun's own flags (listed after --dry-run); run gets the arguments.
func (p *propertyChange) command(what, selectUsage string, extra []cli.Flag, set, unset helpText, run func(ctx context.Context, names []string) error) *cli.Command {
	flags := append([]cli.Flag{
		&cli.StringSliceFlag{Name: "select", Usage: selectUsage, Destination: &p.Select},
		&cli.BoolFlag{Name: "dry-run", Usage: "print the changes, write nothing", Destination: &p.DryRun},
		&cli.BoolFlag{Name: "yes", Usage: "write to several objects (--select, several names) without asking", Destination: &p.Yes},
	}, extra...)
	h := unset
	if p.Set {
		h = set
		flags = append(flags,
			&cli.StringFlag{Name: "tpm-version", Usage: "`VERSION` 1.2 or 2.0", Destination: &p.Version},
			&cli.StringFlag{Name: "tpm-model", Usage: "`MODEL` tpm-tis or tpm-crb", Destination: &p.Model},
			&cli.BoolFlag{Name: "windows", Usage: "the Windows-ready profile: TPM 2.0 + CRB (overridable), UEFI, q35, Secure Boot required, os_type/os_distro windows", Destination: &p.Windows},
			releaseFlag("nova-release", &p.Release, "Nova `RELEASE` for the flavor conflict warnings", ""))
	} else {
		flags = append(flags, &cli.BoolFlag{Name: "windows", Usage: "also remove the Windows profile's keys that still hold the profile's values", Destination: &p.Windows})
	}
	c := h.command(verb(p.Set), "["+what+"…]")
	c.Flags = flags
	c.Action = func(ctx context.Context, cmd *cli.Command) error { return run(ctx, cmd.Args().Slice()) }
	return c
}

// checkedChange is a change that passed the checks, with the session to
// make it in: what the noun's tagging request is built from.
type checkedChange struct {
	sess     *cloud.Session
	selector map[string]string
	change   nova.ImageRequest
	release  nova.ReleaseEvidence
	// progress draws the writing phase on stderr.
	progress func(ctx context.Context) context.Context
	// confirm asks on the terminal before a bulk write (nil: no need).
	confirm func(context.Context, []nova.ObjectPlan) error
}

// start checks the change (one usage line, exit 2, before any cloud is
// contacted), then connects. noun and what name the objects in the
// messages ("image", "IMAGE").
func (p *propertyChange) start(ctx context.Context, g *globalOptions, streams *IOStreams, noun, what string, names []string) (checkedChange, error) {
	c := checkedChange{release: novaRelease(p.Release),
		progress: func(ctx context.Context) context.Context { return withProgress(ctx, streams.Err, "writing "+noun+"s") }}
	var err error
	if c.change, c.selector, err = p.request(noun, what, names); err != nil {
		return c, err
	}
	// a selection, or several names: a bulk write (one name is not)
	gate := writeGate{streams: streams, command: noun + " " + verb(p.Set), bulk: len(c.selector) > 0 || len(names) > 1,
		yes: p.Yes, dryRun: p.DryRun, what: describeChange(p, noun, names)}
	if err := gate.check(); err != nil {
		return c, err
	}
	c.confirm = gate.confirmPlans(noun)
	c.sess, err = g.connect(ctx)
	return c, err
}

// request is the change and its selector, checked.
func (p *propertyChange) request(noun, what string, names []string) (nova.ImageRequest, map[string]string, error) {
	selector, err := nova.ParseKeyValues(p.Select)
	if err != nil {
		return nova.ImageRequest{}, nil, usagef("--select: %w", err)
	}
	if len(names) == 0 && len(selector) == 0 {
		return nova.ImageRequest{}, nil, usagef("%s %s: name at least one %s or --select KEY=VALUE", noun, verb(p.Set), what)
	}
	if p.Set {
		if err := nova.ValidateTPM(p.Version, p.Model); err != nil {
			return nova.ImageRequest{}, nil, err
		}
		if p.Version == "" && !p.Windows {
			return nova.ImageRequest{}, nil, usagef("%s set: needs --tpm-version (or --windows)", noun)
		}
	}
	return nova.ImageRequest{TPMVersion: p.Version, TPMModel: p.Model, Windows: p.Windows}, selector, nil
}

// warnConflicts says how the release was settled and which flavors would
// put a server built from a changed object in ERROR. Advice only: not
// having it is a warning.
func warnConflicts(streams *IOStreams, rel nova.ResolvedRelease, err error, conflicts []string) {
	if w := rel.WarningIn(nil, flagName); w != "" {
		warn(streams, "%s", w)
	}
	if err != nil {
		warn(streams, "flavors not checked for conflicts: %v", err)
		return
	}
	warnAll(streams, conflicts)
}

// describeChange says what a property change would do, and where, for
// the refusal's line: "set hw_tpm_version=2.0 on every image with
// os_distro=windows and on 2 named image(s)".
func describeChange(p *propertyChange, noun string, names []string) string {
	what, on := "set the Windows-ready profile", " on "
	switch {
	case !p.Set && p.Windows:
		what, on = "remove hw_tpm_* and the Windows profile's keys", " from "
	case !p.Set:
		what, on = "remove hw_tpm_*", " from "
	case !p.Windows:
		what = "set " + nova.ImageTPMVersion + "=" + p.Version
		if p.Model != "" {
			what += " " + nova.ImageTPMModel + "=" + p.Model
		}
	}
	var where []string
	if len(p.Select) > 0 {
		where = append(where, fmt.Sprintf("every %s with %s", noun, strings.Join(p.Select, " and ")))
	}
	if len(names) > 0 {
		where = append(where, fmt.Sprintf("%d named %s(s)", len(names), noun))
	}
	return what + on + strings.Join(where, " and"+on)
}
