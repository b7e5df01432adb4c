package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// persistentTail is the end of urfave/cli's command and subcommand help
// templates: every global option again, in every command's help.
const persistentTail = `{{if .VisiblePersistentFlags}}

GLOBAL OPTIONS:{{template "visiblePersistentFlagTemplate" .}}{{end}}
`

// setHelpTemplates gives every command below root a help whose GLOBAL
// OPTIONS are the two that shape its output, -f with only the formats
// that command prints (withFormats) and -c, then a pointer to vtpmctl
// --help for the rest, instead of all global options repeated in each.
func setHelpTemplates(root *cli.Command) {
	for _, n := range commandTree(root)[1:] {
		n.cmd.CustomHelpTemplate = helpTemplate(root, n.cmd)
	}
}

// urfave/cli's group help (a group's --help, or the group named alone)
// takes its package template, not the command's own: this one does.
func init() {
	cli.ShowSubcommandHelp = func(cmd *cli.Command) error {
		tmpl := cmd.CustomHelpTemplate
		if tmpl == "" {
			tmpl = cli.SubcommandHelpTemplate
		}
		cli.HelpPrinter(cmd.Root().Writer, tmpl, cmd)
		return nil
	}
	cli.ShowCommandHelp = showCommandHelp
}

// showCommandHelp prints the help of cmd's subcommand name. Called by the
// help command ("vtpmctl help secrets audit"), it follows every word the
// help command was given: urfave/cli's showed the first one's help
// (secrets'), whatever came after it.
func showCommandHelp(ctx context.Context, cmd *cli.Command, name string) error {
	words := []string{name}
	if h := cmd.Command("help"); h != nil && h.Args() != nil && h.Args().First() == name {
		words = h.Args().Slice()
	}
	target := cmd
	for _, w := range words {
		sub := target.Command(w)
		if sub == nil {
			return unknownCommand(target, w)
		}
		target = sub
	}
	tmpl := target.CustomHelpTemplate
	if tmpl == "" {
		tmpl = cli.CommandHelpTemplate
		if len(target.VisibleCommands()) > 0 {
			tmpl = cli.SubcommandHelpTemplate
		}
	}
	cli.HelpPrinter(cmd.Root().Writer, tmpl, target)
	return nil
}

// helpTemplate is cmd's help template (see setHelpTemplates).
func helpTemplate(root, cmd *cli.Command) string {
	base := cli.CommandHelpTemplate
	if len(cmd.Commands) > 0 {
		base = cli.SubcommandHelpTemplate
	}
	body, ok := strings.CutSuffix(base, persistentTail)
	if !ok {
		return "" // another urfave/cli: its own help (TestSubcommandHelp fails)
	}
	return body + "\n\nGLOBAL OPTIONS:\n" + strings.ReplaceAll(globalHelp(root, cmd), "{{", `{{"{{"}}`) + "\n"
}

// globalHelp is the GLOBAL OPTIONS section of cmd's help: -f (a leaf's
// own formats), -c, and the other global options by name.
func globalHelp(root, cmd *cli.Command) string {
	var b strings.Builder
	var others []string
	for _, f := range root.VisibleFlags() {
		name := f.Names()[0]
		switch {
		case name == "format" && len(cmd.Commands) == 0:
			fs := commandFormats(cmd)
			names := make([]string, len(fs))
			for i, f := range fs {
				names[i] = string(f)
			}
			def := output.FormatTable
			if slices.Contains(fs, output.FormatMarkdown) {
				def = output.FormatMarkdown // a document (output.Write)
			}
			fmt.Fprintf(&b, "   --format FORMAT, -f FORMAT\toutput FORMAT: %s (default: %q)\n", strings.Join(names, ", "), def)
		case name == "column" && len(cmd.Commands) == 0:
			fmt.Fprintf(&b, "   %s\n", strings.Replace(f.String(), " [ --column COLUMN, -c COLUMN ]", "", 1))
		case name == "help" || name == "version" || name == "format" || name == "column":
		default:
			others = append(others, "--"+name)
		}
	}
	fmt.Fprintf(&b, "   %s: see %s --help", strings.Join(others, ", "), root.Name)
	return b.String()
}
