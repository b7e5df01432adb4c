package main

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// TestEveryCommandTeaches: each command's --help carries examples and the
// exit status, so no new command can forget them.
func TestEveryCommandTeaches(t *testing.T) {
	root := newRootCommand(&globalOptions{}, &IOStreams{})
	var walk func(c *cli.Command, path string)
	n := 0
	walk = func(c *cli.Command, path string) {
		n++
		for _, want := range []string{"EXAMPLES:", "EXIT STATUS:"} {
			if !strings.Contains(c.Description, want) {
				t.Errorf("%s --help lacks %s", path, want)
			}
		}
		for _, sub := range c.Commands {
			walk(sub, path+" "+sub.Name)
		}
	}
	walk(root, "vtpmctl")
	if n < 20 {
		t.Errorf("only %d commands walked", n)
	}
}
