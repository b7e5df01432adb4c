package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/fileout"
)

// newManCommand prints vtpmctl(1) from the command tree itself, so the
// manual page never disagrees with --help. With --dir it writes a page per
// command (make dist packages them); with --markdown too, the CLI
// reference in docs/cli (make docs).
func newManCommand(streams *IOStreams) *cli.Command {
	var dir string
	var markdown bool
	return &cli.Command{
		Name: "man", Hidden: true, Usage: "print the manual page (roff): vtpmctl man | man -l -",
		Description: commandHelp(`Prints vtpmctl(1), generated from the commands' own help (the packages
install it). --dir DIR writes vtpmctl.1 and a page per command
(vtpmctl-host-check.1, …) into DIR; with --markdown, the markdown reference
instead (vtpmctl_host_check.md, …, and an index README.md), as in docs/cli.
Pages of commands that no longer exist are removed from DIR.`,
			[]string{"vtpmctl man | man -l -", "vtpmctl man > vtpmctl.1", "vtpmctl man --dir dist/share/man", "vtpmctl man --markdown --dir docs/cli"},
			"EXIT STATUS:\n   0  printed or written\n   1  a page could not be written\n   2  usage error"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "write a page per command into `DIR` (created if missing)", Destination: &dir},
			&cli.BoolFlag{Name: "markdown", Usage: "with --dir: the markdown reference (docs/cli) instead of man pages", Destination: &markdown},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			switch {
			case dir != "" && markdown:
				return writePages(ctx, dir, ".md", markdownPages(cmd.Root()))
			case dir != "":
				return writePages(ctx, dir, ".1", manPages(cmd.Root()))
			case markdown:
				return usagef("man: --markdown needs --dir DIR")
			}
			return writeMan(streams.Out, cmd.Root())
		},
	}
}

// writePages writes pages (file name → content) into dir and removes the
// vtpmctl*ext files there that are no longer generated (a removed command).
func writePages(ctx context.Context, dir, ext string, pages map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "vtpmctl*"+ext))
	if err != nil {
		return err
	}
	for _, f := range old {
		if _, ok := pages[filepath.Base(f)]; !ok {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for name, text := range pages {
		if err := fileout.Write(ctx, filepath.Join(dir, name), fileout.Public, nil, func(w io.Writer) error {
			_, err := io.WriteString(w, text)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// manPages is vtpmctl.1 (the whole manual, as vtpmctl man prints it) and a
// page per command, each naming its parent and subcommands under SEE ALSO.
func manPages(root *cli.Command) map[string]string {
	whole := &strings.Builder{}
	_ = writeMan(whole, root) // a strings.Builder does not fail
	pages := map[string]string{"vtpmctl.1": whole.String()}
	for _, d := range docTree(root)[1:] {
		pages[d.pageName("-")+".1"] = manPage(d)
	}
	return pages
}

func manPage(d *commandDoc) string {
	b := &strings.Builder{}
	name := d.pageName("-")
	fmt.Fprintf(b, ".TH %s 1 \"\" \"vtpmctl %s\" \"User Commands\"\n", roff(strings.ToUpper(name)), roff(version))
	fmt.Fprintf(b, ".SH NAME\n%s \\- %s\n", roff(name), roff(d.usage))
	fmt.Fprintf(b, ".SH SYNOPSIS\n.B %s\n", roff(d.synopsis()))
	if d.about != "" {
		fmt.Fprintf(b, ".SH DESCRIPTION\n.nf\n%s\n.fi\n", roff(d.about))
	}
	if len(d.children) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, c := range d.children {
			fmt.Fprintf(b, ".TP\n.B %s\n%s\n", roff(c.path), roff(c.usage))
		}
	}
	if len(d.flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, f := range d.flags {
			fmt.Fprintf(b, ".TP\n.B %s\n%s\n", roff(f.name), roff(f.usage))
		}
		b.WriteString(".PP\nThe global options are in \\fBvtpmctl\\fR(1).\n")
	}
	if len(d.examples) > 0 {
		fmt.Fprintf(b, ".SH EXAMPLES\n.nf\n%s\n.fi\n", roff(strings.Join(d.examples, "\n")))
	}
	if len(d.exit) > 0 {
		b.WriteString(".SH EXIT STATUS\n")
		for _, r := range d.exit {
			fmt.Fprintf(b, ".TP\n.B %s\n%s\n", r.status, roff(r.meaning))
		}
	}
	see := []string{"\\fB" + roff(d.parent.pageName("-")) + "\\fR(1)"}
	for _, c := range d.children {
		see = append(see, "\\fB"+roff(c.pageName("-"))+"\\fR(1)")
	}
	fmt.Fprintf(b, ".SH SEE ALSO\n%s\n", strings.Join(see, ", "))
	return b.String()
}

// roff escapes text for a man page: backslashes, and a leading dot or
// quote that would make a line a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func writeMan(w io.Writer, root *cli.Command) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, ".TH VTPMCTL 1 \"\" \"vtpmctl %s\" \"User Commands\"\n", roff(version))
	fmt.Fprintf(b, ".SH NAME\nvtpmctl \\- %s\n", roff(root.Usage))
	fmt.Fprintf(b, ".SH SYNOPSIS\n.B vtpmctl\n[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIcommand options\\fR] [\\fIarguments\\fR]\n")
	fmt.Fprintf(b, ".SH DESCRIPTION\n.nf\n%s\n.fi\n", roff(root.Description))
	fmt.Fprintf(b, ".SH GLOBAL OPTIONS\n")
	manFlags(b, root.Flags)
	fmt.Fprintf(b, ".SH COMMANDS\n")
	var walk func(c *cli.Command, path string)
	walk = func(c *cli.Command, path string) {
		for _, sub := range c.Commands {
			if sub.Hidden || sub.Name == "help" {
				continue
			}
			p := path + " " + sub.Name
			fmt.Fprintf(b, ".SS \"%s\"\n%s\n", roff(strings.TrimSpace(p+" "+sub.ArgsUsage)), roff(sub.Usage))
			if d := strings.TrimSpace(sub.Description); d != "" {
				fmt.Fprintf(b, ".PP\n.nf\n%s\n.fi\n", roff(d))
			}
			if len(sub.Flags) > 0 {
				manFlags(b, sub.Flags)
			}
			walk(sub, p)
		}
	}
	walk(root, "vtpmctl")
	fmt.Fprintf(b, ".SH FILES\nclouds.yaml and secure.yaml as the openstack client finds them (OS_CLIENT_CONFIG_FILE, ./, ~/.config/openstack/, /etc/openstack/).\n")
	fmt.Fprintf(b, ".SH SEE ALSO\n\\fBopenstack\\fR(1), \\fBvirsh\\fR(1), \\fBswtpm\\fR(8)\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func manFlags(b *strings.Builder, flags []cli.Flag) {
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		head, usage, _ := strings.Cut(fmt.Sprint(f), "\t")
		fmt.Fprintf(b, ".TP\n.B %s\n%s\n", roff(strings.TrimSpace(head)), roff(strings.TrimSpace(usage)))
	}
}
