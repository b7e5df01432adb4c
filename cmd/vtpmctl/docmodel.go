package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// commandDoc is one command's manual, taken apart from the command itself
// (its --help text and flags), so the man pages and the markdown reference
// in docs/cli say what --help says and nothing else.
type commandDoc struct {
	path     string // "vtpmctl host check"
	usage    string
	args     string
	aliases  []string
	about    string // the description before EXAMPLES:
	examples []string
	exit     []exitRow
	flags    []flagDoc
	formats  []output.Format // leaves only
	parent   *commandDoc
	children []*commandDoc
}

type exitRow struct{ status, meaning string }

// flagDoc is a flag as --help shows it: "--image NAME, -i NAME" and its usage
// (default and environment variables included).
type flagDoc struct{ name, usage string }

// docTree lists the visible commands under root (root first, depth first in
// help order); hidden commands and urfave's own help are not documented.
func docTree(root *cli.Command) []*commandDoc {
	var out []*commandDoc
	var walk func(c *cli.Command, path string, parent *commandDoc)
	walk = func(c *cli.Command, path string, parent *commandDoc) {
		d := newCommandDoc(c, path, parent)
		out = append(out, d)
		if parent != nil {
			parent.children = append(parent.children, d)
		}
		for _, sub := range c.Commands {
			if sub.Hidden || sub.Name == "help" {
				continue
			}
			walk(sub, path+" "+sub.Name, d)
		}
		if parent != nil && len(d.children) == 0 {
			d.formats = commandFormats(c) // a leaf: what its -f accepts
		}
	}
	walk(root, root.Name, nil)
	return out
}

func newCommandDoc(c *cli.Command, path string, parent *commandDoc) *commandDoc {
	d := &commandDoc{path: path, usage: c.Usage, args: c.ArgsUsage, aliases: c.Aliases, parent: parent}
	d.about, d.examples, d.exit = splitHelp(c.Description)
	for _, f := range c.Flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		head, usage, _ := strings.Cut(fmt.Sprint(f), "\t")
		d.flags = append(d.flags, flagDoc{strings.TrimSpace(head), strings.TrimSpace(usage)})
	}
	return d
}

// synopsis is the command line a user types.
func (d *commandDoc) synopsis() string {
	switch {
	case d.parent == nil:
		return d.path + " [global options] <command> [options] [arguments]"
	case len(d.children) > 0:
		return d.path + " <command> [options]"
	}
	s := d.path
	if len(d.flags) > 0 {
		s += " [options]"
	}
	if d.args != "" {
		s += " " + d.args
	}
	return s
}

var exitLine = regexp.MustCompile(`^(\d+)\s+(.*)$`)

// splitHelp takes commandHelp's layout apart: the prose, the EXAMPLES
// lines, the EXIT STATUS rows (a row's wrapped lines joined).
func splitHelp(desc string) (about string, examples []string, exit []exitRow) {
	about, rest, _ := strings.Cut(desc, "EXAMPLES:\n")
	ex, status, _ := strings.Cut(rest, "EXIT STATUS:\n")
	for _, l := range strings.Split(ex, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			examples = append(examples, l)
		}
	}
	for _, l := range strings.Split(status, "\n") {
		l = strings.TrimSpace(l)
		if m := exitLine.FindStringSubmatch(l); m != nil {
			exit = append(exit, exitRow{m[1], m[2]})
		} else if l != "" && len(exit) > 0 {
			exit[len(exit)-1].meaning += " " + l
		}
	}
	return strings.TrimSpace(about), examples, exit
}

// pageName is a command's file name without extension, joined by sep:
// vtpmctl_host_check (markdown), vtpmctl-host-check (man, as git's pages).
func (d *commandDoc) pageName(sep string) string {
	return strings.ReplaceAll(d.path, " ", sep)
}
