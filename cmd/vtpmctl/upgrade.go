package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/upgrade"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

type upgradeOptions struct {
	IO       *IOStreams
	Global   *globalOptions
	To, From nova.Release
	View     viewOptions
	Long     bool
}

func newUpgradeCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &upgradeOptions{IO: streams, Global: g}
	return &cli.Command{
		Name:        "upgrade",
		Usage:       "what a Nova upgrade does to vTPM scheduling",
		Description: commandHelp("See vtpmctl upgrade check --help.", []string{"vtpmctl --os-cloud prod upgrade check --to 2026.1"}, ""),
		Action:      groupAction,
		Commands: []*cli.Command{withResult(&cli.Command{
			Name:  "check",
			Usage: "which hosts stop receiving vTPM guests, and which guests end up stranded, once the scheduler runs RELEASE",
			Description: commandHelp(`
The scheduler asks Placement for more traits with each release: Nova 30
(2024.2) adds the TPM model trait (COMPUTE_SECURITY_TPM_TIS/_CRB), Nova 33
(2026.1) adds COMPUTE_SECURITY_TPM_SECRET_SECURITY_<mode>. A compute host
not yet upgraded does not report them, so a newer scheduler sends it no vTPM
guest. For every host (admin: hypervisors and Placement traits) this says
whether it takes vTPM guests now and after, and for every vTPM guest whether
any other host could still take it (resize, cold migration) — and what to
upgrade first. It also lists the Nova bugs that change a vTPM or UEFI guest's
fate (host check's KNOWN-BUGS: wiped TPM state, reset NVRAM, resize revert)
and whether RELEASE fixes each in every package or only from a point release.

The table leads with the verdict and fits one screen at any fleet size: hosts
grouped by what the upgrade does to them, stranded guests by the traits they
need, each group once with its count and a few names. --long lists every host,
every stranded guest and every known bug; -f json always holds them all, and
its "summary" counts them in every view.
`+viewHelp("hosts (a host's status: warn when it stops receiving vTPM\nguests, else pass; stranded guests are the verdict and always shown)"), []string{
				"vtpmctl --os-cloud prod upgrade check --to 2024.2",
				"vtpmctl --os-cloud prod upgrade check --to 2026.1 --long",
				"vtpmctl --os-cloud prod upgrade check --to 2026.1 -f json",
				"vtpmctl --os-cloud prod upgrade check --to 2026.1 --summary",
				"vtpmctl --os-cloud prod upgrade check --to 2026.1 --status warn",
			}, `EXIT STATUS:
   0  no vTPM guest would be stranded (hosts that lose vTPM scheduling are still listed)
   1  the upgrade would strand vTPM guests: none of them could be resized or migrated anywhere
   2  usage or configuration error`),
			Flags: append([]cli.Flag{
				&cli.GenericFlag{Name: "to", Usage: "the scheduler's new Nova `RELEASE` (zed, 2024.2, gazpacho, 26 …)", Required: true, Value: releaseValue{&o.To}},
				releaseFlag("from", &o.From, "the current Nova `RELEASE`", ""),
				longFlag(&o.Long, "list every host and every stranded guest"),
			}, viewFlags(&o.View)...),
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runUpgradeCheck(ctx, o)
			},
		}, summaryOr(&fleet.UpgradeResult{}, fleet.UpgradeResult{}.SummaryView()))},
	}
}

func runUpgradeCheck(ctx context.Context, o *upgradeOptions) error {
	if err := o.View.parse(); err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := upgrade.Check(ctx, sess, upgrade.Request{To: o.To, From: nova.ReleaseEvidence{Flag: o.From, Field: nova.FieldFromRelease}})
	var older *fleet.OlderTargetError
	if errors.As(err, &older) {
		return usagef("--to %w", err)
	}
	if err != nil {
		return err
	}
	warnRelease(o.IO, res.Resolved)
	view := o.View.pick(o.Global.Output, &res, func() any { return res.SummaryView() },
		func(f result.Filter) any { r := res.Only(f); return &r })
	if u, ok := view.(*fleet.UpgradeResult); ok && brief(o.Global.Output, o.Long) {
		view = u.Brief(longHint)
	}
	if err := output.Write(o.IO.Out, o.Global.Output, view); err != nil {
		return err
	}
	if len(res.Stranded) > 0 {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("upgrading the scheduler to %s would strand %d vTPM guest(s)", o.To, len(res.Stranded))}
	}
	return nil
}
