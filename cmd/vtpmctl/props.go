package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
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
// read is the one service call: the object o.Ref names, decided (as a
// Record: one object's Field/Value table), and the release its rules
// came from.
func (o *showOptions) command(noun, what string, h helpText, extra []cli.Flag, read func(context.Context, *cloud.Session) (output.Recorder, nova.ResolvedRelease, error)) *cli.Command {
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
	PropertyOld  []string          // --property, the old spelling of --select
	Properties   map[string]string // Property, parsed
	AllProjects  bool              // volume: every project's
	Release      nova.Release      // volume: whose rules decide the vTPM
}

// filterFlags are --vtpm, --no-vtpm and --select in the noun's words.
// --select is the one name of a KEY=VALUE filter (set and unset take it
// too); --property, its old spelling here, stays hidden for the scripts
// that call it (on a write command it would read as openstack's "set
// this property").
func (o *listOptions) filterFlags(vtpm, noVTPM, property string) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "vtpm", Usage: vtpm, Destination: &o.VTPM},
		&cli.BoolFlag{Name: "no-vtpm", Usage: noVTPM, Destination: &o.NoVTPM},
		&cli.StringSliceFlag{Name: "select", Usage: property, Destination: &o.Property},
		&cli.StringSliceFlag{Name: "property", Hidden: true, Destination: &o.PropertyOld},
	}
}

// filter is --vtpm / --no-vtpm as the list services' filter.
func (o *listOptions) filter() nova.VTPMFilter {
	switch {
	case o.VTPM:
		return nova.WithVTPM
	case o.NoVTPM:
		return nova.WithoutVTPM
	}
	return nova.AnyVTPM
}

// command is `NOUN list`: no arguments and the filters checked before any
// cloud is contacted; read is the one service call, its result the rows.
func (o *listOptions) command(noun string, h helpText, flags []cli.Flag, read func(context.Context, *cloud.Session) (output.Tabular, error)) *cli.Command {
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
		if o.Properties, err = nova.ParseKeyValues(append(o.Property, o.PropertyOld...)); err != nil {
			return usagef("--select: %w", err)
		}
		sess, err := o.Global.connect(ctx)
		if err != nil {
			return err
		}
		rows, err := read(ctx, sess)
		if err != nil {
			return err
		}
		return output.Write(o.IO.Out, o.Global.Output, rows)
	}
	return c
}
