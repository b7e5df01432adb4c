package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"
)

// newManCommand prints vtpmctl(1) from the command tree itself, so the
// manual page never disagrees with --help (make dist packages it).
func newManCommand(streams *IOStreams) *cli.Command {
	return &cli.Command{
		Name: "man", Hidden: true, Usage: "print the manual page (roff): vtpmctl man | man -l -",
		Description: commandHelp("Prints vtpmctl(1), generated from the commands' own help (the packages install it).",
			[]string{"vtpmctl man | man -l -", "vtpmctl man > vtpmctl.1"}, "EXIT STATUS:\n   0  printed\n   2  usage error"),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return writeMan(streams.Out, cmd.Root())
		},
	}
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
