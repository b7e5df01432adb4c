package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/nova"
)

// The pieces `image` and `volume` share. The two nouns differ in where
// the properties live (Glance, or the volume's image metadata in Cinder)
// and in their words; the commands' shape, flags and checks are one.

// helpText is a command's words in --help.
type helpText struct {
	usage, about string
	examples     []string
	exit         string // "" for the shared EXIT STATUS
}

func (h helpText) command(name, argsUsage string) *cli.Command {
	return &cli.Command{Name: name, ArgsUsage: argsUsage, Usage: h.usage, Description: commandHelp(h.about, h.examples, h.exit)}
}

// propsGroup is the `image` or `volume` group: set, unset, show, list.
func propsGroup(name string, h helpText, commands ...*cli.Command) *cli.Command {
	c := h.command(name, "")
	c.Action, c.Commands = groupAction, commands
	return c
}

// novaRelease is the --nova-release every image and volume command takes,
// as evidence for the release resolution.
func novaRelease(r nova.Release) nova.ReleaseEvidence {
	return nova.ReleaseEvidence{Flag: r, FlagName: "--nova-release"}
}

// showOptions is `image show` or `volume show`: one object by name or ID
// and what Nova makes of it.
type showOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Ref     string
	Release nova.Release
	// AllProjects (volume) finds the object by name in every project.
	AllProjects bool
}

// command is `NOUN show WHAT` with extra flags after --nova-release;
// read finds o.Ref and words it, with the release its rules came from.
func (o *showOptions) command(noun, what string, h helpText, extra []cli.Flag, read func(context.Context, *cloud.Session) (output.Record, nova.ResolvedRelease, error)) *cli.Command {
	c := h.command("show", what)
	c.Flags = append([]cli.Flag{releaseFlag("nova-release", &o.Release, "Nova `RELEASE` whose rules apply", "")}, extra...)
	c.Action = func(ctx context.Context, cmd *cli.Command) error {
		if cmd.Args().Len() != 1 {
			return usagef("%s show: exactly one %s, got %d (see vtpmctl %s show --help)", noun, what, cmd.Args().Len(), noun)
		}
		o.Ref = cmd.Args().First()
		sess, err := o.Global.connect(ctx)
		if err != nil {
			return err
		}
		rec, rel, err := read(ctx, sess)
		if err != nil {
			return err
		}
		warnRelease(o.IO, rel)
		return output.Write(o.IO.Out, o.Global.Output, rec)
	}
	return c
}

// listOptions is `image list` or `volume list`: every object the caller
// can see, filtered.
type listOptions struct {
	IO           *IOStreams
	Global       *globalOptions
	VTPM, NoVTPM bool
	Property     []string
	Properties   map[string]string // Property, parsed
	AllProjects  bool              // volume: every project's
	Release      nova.Release      // volume: whose rules decide the vTPM
}

// filterFlags are --vtpm, --no-vtpm and --property in the noun's words.
func (o *listOptions) filterFlags(vtpm, noVTPM, property string) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "vtpm", Usage: vtpm, Destination: &o.VTPM},
		&cli.BoolFlag{Name: "no-vtpm", Usage: noVTPM, Destination: &o.NoVTPM},
		&cli.StringSliceFlag{Name: "property", Usage: property, Destination: &o.Property},
	}
}

// keep says whether --vtpm / --no-vtpm keep an object that has (or
// gets) a vTPM.
func (o *listOptions) keep(vtpm bool) bool {
	return !(o.VTPM && !vtpm) && !(o.NoVTPM && vtpm)
}

// command is `NOUN list`: no arguments and the filters checked before any
// cloud is contacted; read lists the kept objects, one row each.
func (o *listOptions) command(noun string, h helpText, flags []cli.Flag, columns []string, read func(context.Context, *cloud.Session) ([]output.Record, error)) *cli.Command {
	c := h.command("list", "")
	c.Flags = flags
	c.Action = func(ctx context.Context, cmd *cli.Command) error {
		if err := noArgs(cmd); err != nil {
			return err
		}
		if o.VTPM && o.NoVTPM {
			return usagef("%s list: --vtpm and --no-vtpm exclude each other", noun)
		}
		var err error
		if o.Properties, err = nova.ParseKeyValues(o.Property); err != nil {
			return usagef("--property: %w", err)
		}
		sess, err := o.Global.connect(ctx)
		if err != nil {
			return err
		}
		recs, err := read(ctx, sess)
		if err != nil {
			return err
		}
		return output.Write(o.IO.Out, o.Global.Output, output.List{Columns: columns, Rows: recs})
	}
	return c
}

// vtpmText is a decision in one cell: none, "2.0 tpm-crb", or the refusal.
func vtpmText(d nova.Decision) string {
	switch {
	case d.Error != nil:
		return "refused: " + d.Error.Message
	case d.VTPM:
		return d.Version + " " + d.Model
	}
	return "none"
}
