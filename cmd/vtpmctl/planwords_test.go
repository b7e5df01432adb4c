package main

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/migration"
)

// TestPlanWords: every option the migration's reasons and remedies point
// to is spelled as a flag of the plan command that has it, and the
// commands as cliWords spell them.
func TestPlanWords(t *testing.T) {
	root := newRootCommand(&globalOptions{}, &IOStreams{})
	flags := map[string]map[string]bool{}
	for _, c := range commandTree(root) {
		flags[c.path] = map[string]bool{}
		for _, f := range c.cmd.Flags {
			for _, n := range f.Names() {
				flags[c.path]["--"+n] = true
			}
		}
	}
	command := map[advice.Option]string{migration.OptionVTPMColumn: "plan import"}
	for _, o := range migration.Options {
		cmd := command[o]
		if cmd == "" {
			cmd = "plan verify"
		}
		if f := (planWords{}).Option(o); !flags[cmd][f] {
			t.Errorf("migration option %s is spelled %q: %s has no such flag", o, f, cmd)
		}
	}
	for _, o := range advice.Options {
		if got, want := (planWords{}).Option(o), (cliWords{}).Option(o); got != want {
			t.Errorf("advice option %s: %q, cliWords %q", o, got, want)
		}
	}
	for _, c := range advice.Commands {
		if got, want := (planWords{}).Command(c), (cliWords{}).Command(c); got != want {
			t.Errorf("command %s: %q, cliWords %q", c, got, want)
		}
	}
}
