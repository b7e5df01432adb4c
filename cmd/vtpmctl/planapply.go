package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/urfave/cli/v3"
	"github.com/vtpmctl/vtpmctl/app/plan"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

type planApplyOptions struct {
	IO          *IOStreams
	Global      *globalOptions
	File        string
	Yes         bool
	DryRun      bool
	Release     nova.Release
	Match       []string // boot volumes: VM=VOLUME or a template
	AllProjects bool     // list every project's volumes (admin)
}

func newPlanApplyCommand(g *globalOptions, streams *IOStreams, apply bool) *cli.Command {
	o := &planApplyOptions{IO: streams, Global: g}
	c := &cli.Command{Name: "diff", ArgsUsage: "PLAN", Usage: "what plan apply would change on the cloud (writes nothing)"}
	about := `Compares the plan's images and flavors with the cloud, using the same code
as the image and flavor commands, and prints every key: added, replaced or
unchanged. Nothing the plan does not name is touched; nothing is removed.
Images the plan names that are not in Glance yet (disks not converted) are
listed as pending.

A VM whose disk a migration tool landed on a Cinder volume (migratekit,
os-migrate, virt-v2v -o openstack) has its boot volume converged instead.
Its boot volume is found by the first of these that finds one:
  1. a --match VM=VOLUME rule (the volume's name or ID)
  2. the volume's image metadata, then its metadata, vtpmctl:source naming the VM
  3. a --match template, e.g. {vm}-boot
  4. the VM's plan image name, then the VM's name
where several volumes qualify only the bootable ones count (a template or a
name finds bootable volumes only). The volume gets the plan image's vTPM,
UEFI and Secure Boot properties in its image metadata
(os-set_image_metadata), which Nova reads for a volume-backed server. Two
volumes for one VM, or one for two, stop the apply before any write: name
the boot volume with --match VM=VOLUME.`
	exit := `EXIT STATUS:
   0  the difference was computed (or, for apply --yes, every write succeeded)
   1  a write failed (apply): what was applied and what was not is printed; rerun to converge
   2  usage error, unreadable or invalid plan, a plan Nova would refuse, a plan flavor
      whose name the cloud has with another size: nothing is written`
	if apply {
		c = &cli.Command{Name: "apply", ArgsUsage: "PLAN", Usage: "converge the cloud's images, flavors and boot volumes to the plan (dry run unless --yes)"}
		about += `

apply is a dry run unless --yes. It is idempotent: a second apply sends no
write. A new flavor is created all or nothing. On a failure midway, every
object's outcome is printed, the exit status is 1, and a rerun converges.`
		c.Flags = []cli.Flag{&cli.BoolFlag{Name: "yes", Usage: "write the changes", Destination: &o.Yes},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the changes, write nothing (even with --yes)", Destination: &o.DryRun}}
	}
	c.Flags = append(c.Flags, releaseFlag("nova-release", &o.Release, "Nova `RELEASE` whose rules apply", ""),
		&cli.StringSliceFlag{Name: "match", Usage: "tie VMs to boot volumes: `VM=VOLUME` (name or ID) or a template such as {vm}-boot (repeatable)", Destination: &o.Match},
		&cli.BoolFlag{Name: "all-projects", Usage: "look for boot volumes in every project (admin)", Destination: &o.AllProjects})
	c.Description = commandHelp(about, []string{"vtpmctl --os-cloud prod plan diff plan.yaml", "vtpmctl --os-cloud prod plan apply plan.yaml --yes"}, exit)
	c.Action = func(ctx context.Context, cmd *cli.Command) error {
		if cmd.Args().Len() != 1 {
			return usagef("plan %s: exactly one PLAN file", c.Name)
		}
		o.File = cmd.Args().First()
		return runPlanApply(ctx, o, apply && o.Yes && !o.DryRun)
	}
	return withResult(c, changesResult)
}

// matchRules reads the --match values; a bad one is worded with the
// flag and what the command's rules name (SERVER, VOLUME).
func matchRules(values []string, target string) ([]migration.MatchRule, error) {
	var rules []migration.MatchRule
	for _, m := range values {
		r, err := migration.ParseMatch(m)
		if me := (*migration.MatchError)(nil); errors.As(err, &me) {
			return nil, &usageError{msg: me.Message("--match", target), err: err}
		} else if err != nil {
			return nil, usagef("--match: %w", err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func runPlanApply(ctx context.Context, o *planApplyOptions, write bool) error {
	rules, err := matchRules(o.Match, "VOLUME") // plan apply ties VMs to boot volumes
	if err != nil {
		return err
	}
	p, err := readPlanFile(o.File)
	if err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := plan.Apply(ctx, sess, plan.ApplyRequest{Plan: p, Rules: rules, AllProjects: o.AllProjects, Write: write,
		Release:  nova.ReleaseEvidence{Flag: o.Release, Field: nova.FieldRelease},
		Progress: func(ctx context.Context, phase string) context.Context { return withProgress(ctx, o.IO.Err, phase) }})
	if w := res.Release.WarningIn(nil, flagName); w != "" {
		warn(o.IO, "%s", w) // the release the diff used, even when it failed
	}
	var diffErr *plan.DiffError
	switch {
	case errors.As(err, &diffErr):
		// exitCode tells a bad plan (2) from a failed cloud (1); a value
		// Nova refuses is named by the plan's key, not a flag.
		return inWords(fmt.Errorf("plan %s: %w", o.File, diffErr.Err), planKey)
	case errors.Is(err, plan.ErrNoBlockStorage):
		return usagef("--match: %v", err)
	case err != nil:
		return err
	}
	conv := res.Convergence
	for _, m := range conv.Missing {
		say(o.IO.Err, "vtpmctl: image %s: pending, not in Glance yet (convert the VM's disk first)", m)
	}
	// the plan's keys Nova ignores: on a pending image from the plan, on
	// the others from their plan (printChanges), with the keys they keep
	warnPlanKeys(o.IO, o.File, p, func(image string) bool { return slices.Contains(conv.Missing, image) })
	all := append(append(append([]nova.ObjectPlan{}, conv.Images...), conv.Flavors...), conv.Volumes...)
	err = printChanges(o.IO, o.Global, all, !write)
	if !write {
		fmt.Fprintln(o.IO.Err, "vtpmctl: pass --yes to plan apply to write these changes")
	}
	return err
}
