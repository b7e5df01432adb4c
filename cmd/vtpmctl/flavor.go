package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/flavor"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

type flavorOptions struct {
	IO     *IOStreams
	Global *globalOptions

	Flavors []string
	Request nova.FlavorRequest
	Release nova.Release
	DryRun  bool
	Yes     bool // set|unset: several flavors without asking
	// create
	VCPUs, RAM, Disk int
	Public, Private  bool
	Projects         []string
	// unset: which keys (none given: all vTPM keys)
	UnsetModel, UnsetSecretSecurity bool
}

const flavorExit = `EXIT STATUS:
   0  every flavor has the requested specs (written now or already)
   1  a write failed (e.g. Nova 403: extra specs need the admin role); a failed create is rolled back
   2  usage error, unknown or ambiguous flavor, a request Nova would refuse on this release,
      or (create) a flavor name already taken with another size: nothing is written`

func newFlavorCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	return &cli.Command{
		Name:  "flavor",
		Usage: "publish and maintain vTPM flavors: create, set, unset, show, list",
		Description: commandHelp(`
Flavor extra specs hw:tpm_version, hw:tpm_model and (Nova 33, 2026.1, and
later) hw:tpm_secret_security. Every command validates against the Nova
release of the cloud first, writes only what differs (single-key PUT for a
changed spec, never delete-then-create), and can be rerun safely.`, []string{
			"vtpmctl flavor create w1.large --vcpus 4 --ram 16384 --disk 120 --public --tpm-version 2.0 --tpm-model tpm-crb",
			"vtpmctl flavor set w1.large w1.xlarge --tpm-model tpm-crb --dry-run",
			"vtpmctl flavor list --vtpm",
		}, ""),
		Action:   groupAction,
		Commands: []*cli.Command{newFlavorCreateCommand(g, streams), newFlavorSetCommand(g, streams, true), newFlavorSetCommand(g, streams, false), newFlavorShowCommand(g, streams), newFlavorListCommand(g, streams)},
	}
}

func tpmFlags(o *flavorOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tpm-version", Usage: "hw:tpm_version `VERSION`: 1.2 or 2.0", Destination: &o.Request.TPMVersion},
		&cli.StringFlag{Name: "tpm-model", Usage: "hw:tpm_model `MODEL`: tpm-tis or tpm-crb", Destination: &o.Request.TPMModel},
		&cli.StringFlag{Name: "secret-security", Usage: "hw:tpm_secret_security `MODE`: user, host or deployment (Nova 33, 2026.1, and later)", Destination: &o.Request.SecretSecurity},
		releaseFlag("nova-release", &o.Release, "Nova `RELEASE` whose rules apply", ""),
	}
}

func newFlavorCreateCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &flavorOptions{IO: streams, Global: g}
	return withResult(&cli.Command{
		Name: "create", ArgsUsage: "NAME", Usage: "create a vTPM flavor with its specs, all or nothing",
		Description: commandHelp(`
Creates the flavor, grants --project access for a private one, and sets the
vTPM specs. If any step after the creation fails, the flavor is deleted again:
no vTPM-named flavor is ever left without its specs. When NAME already exists
with the same size and visibility, its specs are brought in line instead, so
a publishing script can be rerun.`, []string{
			"vtpmctl flavor create w1.large --vcpus 4 --ram 16384 --disk 120 --tpm-version 2.0 --tpm-model tpm-crb",
			"vtpmctl flavor create w1.secure --vcpus 4 --ram 8192 --disk 80 --private --project windows-team --tpm-version 2.0 --secret-security host",
		}, flavorExit),
		Flags: append(tpmFlags(o),
			&cli.IntFlag{Name: "vcpus", Usage: "`N` virtual CPUs", Destination: &o.VCPUs},
			&cli.IntFlag{Name: "ram", Usage: "`MB` of memory", Destination: &o.RAM},
			&cli.IntFlag{Name: "disk", Usage: "`GB` of root disk", Destination: &o.Disk},
			&cli.BoolFlag{Name: "public", Usage: "every project may use it (the default)", Destination: &o.Public},
			&cli.BoolFlag{Name: "private", Usage: "only the --project projects may use it", Destination: &o.Private},
			&cli.StringSliceFlag{Name: "project", Usage: "`PROJECT` (name or ID) given access to a private flavor (repeatable)", Destination: &o.Projects},
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("flavor create: exactly one NAME, got %d", cmd.Args().Len())
			}
			o.Flavors = cmd.Args().Slice()
			return runFlavorCreate(ctx, o)
		},
	}, changesResult)
}

// runFlavorCreate checks the flags (exit 2 before any cloud is
// contacted), then one call: flavor.Create.
func runFlavorCreate(ctx context.Context, o *flavorOptions) error {
	switch {
	case o.VCPUs < 1 || o.RAM < 1 || o.Disk < 0:
		return usagef("flavor create: --vcpus and --ram must be at least 1 and --disk at least 0")
	case o.Public && o.Private:
		return usagef("flavor create: --public and --private exclude each other")
	case len(o.Projects) > 0 && !o.Private:
		return usagef("flavor create: --project only makes sense with --private")
	case o.Request.TPMVersion == "":
		return usagef("flavor create: --tpm-version is required (a vTPM flavor without a version asks for nothing)")
	}
	if err := nova.ValidateFlavorValues(o.Request); err != nil {
		return inWords(err, flagName)
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := flavor.Create(ctx, sess, flavor.CreateRequest{Name: o.Flavors[0], VCPUs: o.VCPUs, RAM: o.RAM, Disk: o.Disk,
		Public: !o.Private, Projects: o.Projects, Change: o.Request, Release: novaRelease(o.Release)})
	warnRelease(o.IO, res.Release)
	warnImageConflicts(o.IO, res.Conflicts, res.ConflictsErr)
	var size *flavor.SizeError
	if errors.As(err, &size) {
		return fmt.Errorf("flavor create: %w; choose another name or delete the flavor first", err)
	}
	if err != nil {
		return inWords(err, flagName)
	}
	if res.Plan.Err == nil && !res.Created {
		say(o.IO.Err, "vtpmctl: flavor %s already exists with this size; its specs were brought in line", res.Plan.Name)
	}
	return printChanges(o.IO, o.Global, []nova.ObjectPlan{res.Plan}, false)
}

func newFlavorSetCommand(g *globalOptions, streams *IOStreams, set bool) *cli.Command {
	o := &flavorOptions{IO: streams, Global: g}
	c := &cli.Command{ArgsUsage: "FLAVOR…"}
	dry := &cli.BoolFlag{Name: "dry-run", Usage: "print the changes, write nothing", Destination: &o.DryRun}
	yes := &cli.BoolFlag{Name: "yes", Usage: "write to several flavors without asking", Destination: &o.Yes}
	if set {
		c.Name, c.Usage = "set", "set vTPM extra specs on flavors (only what differs)"
		c.Flags = append(tpmFlags(o), dry, yes)
		c.Description = commandHelp(`
Sets the given specs on every FLAVOR (names or IDs). Nothing is written when a
flavor is unknown or the result would be refused by Nova on this release.
Existing servers keep the specs Nova copied into them at boot; the output says
how many servers use each changed flavor (counting needs admin), and warns of
every spec a flavor keeps that Nova does not read but that stands for a vTPM
key (hw_tpm_version, the image's spelling; -f json: near_misses). Several
flavors at once are a bulk write: --yes, or a confirmation on a terminal
(without one, refused before any cloud is asked).`, []string{
			"vtpmctl flavor set w1.large --tpm-version 2.0 --tpm-model tpm-crb",
			"vtpmctl flavor set w1.large w1.xlarge --secret-security host --dry-run",
			"vtpmctl flavor set w1.large w1.xlarge --secret-security host --yes",
		}, flavorExit)
	} else {
		c.Name, c.Usage = "unset", "remove vTPM extra specs from flavors"
		c.Flags = []cli.Flag{
			&cli.BoolFlag{Name: "tpm-model", Usage: "remove only hw:tpm_model", Destination: &o.UnsetModel},
			&cli.BoolFlag{Name: "secret-security", Usage: "remove only hw:tpm_secret_security", Destination: &o.UnsetSecretSecurity},
			dry, yes,
			releaseFlag("nova-release", &o.Release, "Nova `RELEASE` whose rules apply", ""),
		}
		c.Description = commandHelp(`
Without flags removes hw:tpm_version, hw:tpm_model and hw:tpm_secret_security:
new servers of the flavor get no vTPM (unless their image asks for one).
Several flavors at once need --yes (or a confirmation on a terminal).`, []string{
			"vtpmctl flavor unset w1.old",
			"vtpmctl flavor unset w1.large --secret-security",
		}, flavorExit)
	}
	c.Action = func(ctx context.Context, cmd *cli.Command) error {
		o.Flavors = cmd.Args().Slice()
		if len(o.Flavors) == 0 {
			return usagef("flavor %s: name at least one FLAVOR", c.Name)
		}
		return runFlavorSet(ctx, o, set)
	}
	return withResult(c, changesResult)
}

// runFlavorSet checks the flags (exit 2 before any cloud is contacted),
// then one call: flavor.Tag.
func runFlavorSet(ctx context.Context, o *flavorOptions, set bool) error {
	if set && len(o.Request.Specs()) == 0 {
		return usagef("flavor set: give --tpm-version, --tpm-model or --secret-security")
	}
	if err := nova.ValidateFlavorValues(o.Request); err != nil {
		return inWords(err, flagName)
	}
	var unset []string // none: every vTPM key
	if o.UnsetModel {
		unset = append(unset, nova.FlavorTPMModel)
	}
	if o.UnsetSecretSecurity {
		unset = append(unset, nova.FlavorTPMSecretSecurity)
	}
	gate := writeGate{streams: o.IO, command: "flavor " + verb(set), bulk: len(o.Flavors) > 1, yes: o.Yes, dryRun: o.DryRun,
		what: fmt.Sprintf("change the extra specs of %d flavors", len(o.Flavors))}
	if err := gate.check(); err != nil {
		return err
	}
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	res, err := flavor.Tag(ctx, sess, flavor.TagRequest{Flavors: o.Flavors, Set: set, Change: o.Request, Unset: unset,
		DryRun: o.DryRun, Release: novaRelease(o.Release), Confirm: gate.confirmPlans("flavor"),
		Progress: func(ctx context.Context) context.Context { return withProgress(ctx, o.IO.Err, "writing flavors") }})
	warnRelease(o.IO, res.Release)
	warnImageConflicts(o.IO, res.Conflicts, res.ConflictsErr)
	if err != nil {
		return inWords(err, flagName)
	}
	for _, s := range res.Servers {
		switch {
		case s.Err != nil:
			say(o.IO.Err, "vtpmctl: %s: could not count the servers using it (%s)", s.Flavor, s.Err)
		case s.Count > 0:
			say(o.IO.Err, "vtpmctl: %s: %d server(s) use this flavor; Nova keeps the specs it copied into them at boot, so they change only on resize", s.Flavor, s.Count)
		}
	}
	return printChanges(o.IO, o.Global, res.Plans, o.DryRun)
}

// warnImageConflicts names the images that would put a server of a
// changed flavor in ERROR. Advice only: not having it is a warning.
func warnImageConflicts(streams *IOStreams, conflicts []string, err error) {
	if err != nil {
		warn(streams, "images not checked for conflicts: %v", err)
		return
	}
	warnAll(streams, conflicts)
}

func newFlavorShowCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &flavorOptions{IO: streams, Global: g}
	return withResult(&cli.Command{
		Flags: []cli.Flag{releaseFlag("nova-release", &o.Release, "Nova `RELEASE` whose rules apply", "")},
		Name:  "show", ArgsUsage: "FLAVOR", Usage: "a flavor's vTPM specs and what Nova makes of them",
		Description: commandHelp("Shows one flavor's size, visibility, vTPM specs and what Nova gives a server\nbuilt from it with an image that carries no hw_tpm_*.",
			[]string{"vtpmctl flavor show w1.large", "vtpmctl flavor show w1.large -f json -c required_traits"}, ""),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("flavor show: exactly one FLAVOR, got %d", cmd.Args().Len())
			}
			sess, err := g.connect(ctx)
			if err != nil {
				return err
			}
			shown, err := flavor.Show(ctx, sess, flavor.ShowRequest{Ref: cmd.Args().First(), Release: novaRelease(o.Release)})
			warnRelease(streams, shown.Release)
			if err != nil {
				return err
			}
			return output.Write(streams.Out, g.Output, shown)
		},
	}, prints(flavor.Shown{}))
}

// flavorListOptions is `flavor list`.
type flavorListOptions struct {
	IO     *IOStreams
	Global *globalOptions
	VTPM   bool // only flavors with a hw:tpm_* spec
}

func newFlavorListCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &flavorListOptions{IO: streams, Global: g}
	return withResult(&cli.Command{
		Name: "list", Usage: "flavors with their vTPM specs",
		Description: commandHelp("Lists every flavor the caller can see, extra specs included (one paginated\nlist, no per-flavor request).", []string{"vtpmctl flavor list --vtpm", "vtpmctl flavor list -f json"}, ""),
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "vtpm", Usage: "only flavors with a hw:tpm_* spec", Destination: &o.VTPM}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return runFlavorList(ctx, o)
		},
	}, prints(flavor.Listed{}))
}

func runFlavorList(ctx context.Context, o *flavorListOptions) error {
	sess, err := o.Global.connect(ctx)
	if err != nil {
		return err
	}
	req := flavor.ListRequest{}
	if o.VTPM {
		req.VTPM = nova.WithVTPM
	}
	l, err := flavor.List(ctx, sess, req)
	if err != nil {
		return err
	}
	return output.Write(o.IO.Out, o.Global.Output, l)
}
