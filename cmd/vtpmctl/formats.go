package main

import (
	"context"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// formatsKey is where withFormats keeps a command's formats (Metadata).
const formatsKey = "vtpmctl.formats"

// The format sets commands declare besides the default one.
var (
	// metricsFormats: results with Gauges (host check, hosts audit,
	// secrets audit).
	metricsFormats = []output.Format{output.FormatTable, output.FormatJSON, output.FormatYAML, output.FormatValue, output.FormatCSV, output.FormatPrometheus}
	// documentFormats: a result that is a markdown document (and markdown
	// by default; see output.Write).
	documentFormats = []output.Format{output.FormatTable, output.FormatJSON, output.FormatYAML, output.FormatValue, output.FormatCSV, output.FormatMarkdown}
)

// withFormats declares the -f values cmd can print (all of them, not
// additions), as kubectl's PrintFlags.AllowedFormats: the declaration
// lives with the command, and -f anything else is refused for the command
// actually invoked before any work (guardFormats). A command that
// declares nothing prints output.DefaultFormats.
func withFormats(cmd *cli.Command, fs ...output.Format) *cli.Command {
	if cmd.Metadata == nil {
		cmd.Metadata = map[string]any{}
	}
	cmd.Metadata[formatsKey] = slices.Clone(fs)
	return cmd
}

// commandFormats is what cmd declared, else the default set.
func commandFormats(cmd *cli.Command) []output.Format {
	if fs, ok := cmd.Metadata[formatsKey].([]output.Format); ok {
		return fs
	}
	return output.DefaultFormats
}

// commandPath is a command's words below the root ("image show").
type commandPath struct {
	path string
	cmd  *cli.Command
}

// commandTree lists every command under root, depth first in help order.
func commandTree(root *cli.Command) []commandPath {
	var out []commandPath
	var walk func(c *cli.Command, path string)
	walk = func(c *cli.Command, path string) {
		out = append(out, commandPath{path, c})
		for _, sub := range c.Commands {
			walk(sub, strings.TrimSpace(path+" "+sub.Name))
		}
	}
	walk(root, "")
	return out
}

// formatGuard refuses -f values commands did not declare. users[f] are
// the commands that print f, for the message.
type formatGuard struct {
	g     *globalOptions
	users map[output.Format][]string
}

// guardFormats wraps every command so the one urfave/cli resolved checks -f against its own
// declaration: a leaf in Before (after every flag is parsed, before flag
// actions, required flags and the action), a group or the root in its
// Action (a group's Before also runs for its subcommands).
func guardFormats(root *cli.Command, g *globalOptions) *formatGuard {
	tree := commandTree(root)
	fg := &formatGuard{g: g, users: map[output.Format][]string{}}
	for _, n := range tree {
		for _, f := range commandFormats(n.cmd) {
			fg.users[f] = append(fg.users[f], n.path)
		}
	}
	for _, n := range tree {
		fg.wrap(n.cmd, n.path)
	}
	return fg
}

// wrapTree guards a command urfave/cli adds at run time (completion and
// its shells), named path.
func (fg *formatGuard) wrapTree(c *cli.Command, path string) {
	for _, n := range commandTree(c) {
		fg.wrap(n.cmd, strings.TrimSpace(path+" "+n.path))
	}
}

// wrap installs the check on one command.
func (fg *formatGuard) wrap(c *cli.Command, path string) {
	if path == "" {
		path = c.Name
	}
	if len(c.Commands) == 0 {
		before := c.Before
		c.Before = func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			if err := fg.check(cmd, path); err != nil {
				return ctx, err
			}
			if before != nil {
				return before(ctx, cmd)
			}
			return ctx, nil
		}
		return
	}
	if action := c.Action; action != nil {
		c.Action = func(ctx context.Context, cmd *cli.Command) error {
			// An unknown subcommand is the first thing to say.
			if cmd.Args().Len() == 0 {
				if err := fg.check(cmd, path); err != nil {
					return err
				}
			}
			return action(ctx, cmd)
		}
	}
}

// check is nil when -f is one cmd declared and every -c names a column
// of what it prints in that format (checkColumns), else the usage error:
// the command, its formats and the commands that print the asked one; or
// the column flag, its value and the closest column.
func (fg *formatGuard) check(cmd *cli.Command, path string) error {
	f := output.Format(fg.g.Output.Format)
	allowed := commandFormats(cmd)
	if f == "" || slices.Contains(allowed, f) {
		return checkColumns(cmd, path, f)
	}
	fe := &output.FormatError{Format: string(f), Command: path, Allowed: allowed}
	if !slices.Contains(output.DefaultFormats, f) {
		fe.For = fg.users[f]
	}
	return fe
}
