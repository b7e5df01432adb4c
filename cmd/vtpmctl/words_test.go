package main

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
)

// TestCLIWords: every option, field and command the layers below name
// is spelled by the CLI, and each spelling is a flag or command the CLI
// really has: renaming a flag breaks this test, not a remedy's advice.
func TestCLIWords(t *testing.T) {
	root := newRootCommand(&globalOptions{}, &IOStreams{})
	flags, commands := map[string]bool{}, map[string]bool{}
	for _, c := range commandTree(root) {
		commands[c.path] = true
		for _, f := range c.cmd.Flags {
			for _, n := range f.Names() {
				flags["--"+n] = true
			}
		}
	}
	has := func(what, spelled string) {
		for _, part := range strings.Split(spelled, " or ") {
			if !flags[part] {
				t.Errorf("%s is spelled %q: no command has that flag", what, part)
			}
		}
	}
	for _, o := range advice.Options {
		has("advice."+string(o), (cliWords{}).Option(o))
	}
	for _, c := range advice.Commands {
		w := (cliWords{}).Command(c)
		if !commands[strings.TrimPrefix(w, "vtpmctl ")] {
			t.Errorf("advice command %q is spelled %q: no such command", c, w)
		}
	}
	for _, f := range []nova.Field{nova.FieldTPMVersion, nova.FieldTPMModel, nova.FieldSecretSecurity, nova.FieldWindows, nova.FieldRelease, nova.FieldFromRelease} {
		has("nova field "+string(f), flagName(f))
	}
	for _, o := range []cloud.Option{cloud.OptionCloud, cloud.OptionTimeout, cloud.OptionCACert, cloud.OptionRegion} {
		has("cloud option "+string(o), cloudFlags[o])
	}
}
