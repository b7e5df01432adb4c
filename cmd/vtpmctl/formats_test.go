package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// declaredFormats is what each command may print beyond the default set:
// the README's promise (-f prometheus for the three audits, -f markdown
// for the checklist) checked against the built tree.
var declaredFormats = map[string][]output.Format{
	"host check":     metricsFormats,
	"hosts audit":    metricsFormats,
	"secrets audit":  metricsFormats,
	"plan checklist": documentFormats,
}

// TestCommandFormats: every command in the tree declares what the table
// above says (the default set otherwise); each declared format passes the
// invoked leaf's check; every other known format is refused by that leaf
// with one line naming the command, its formats and who prints the
// format, exit 2 and nothing on stdout. Before the declarations, argv
// words decided: `-f markdown image show checklist` passed.
func TestCommandFormats(t *testing.T) {
	g := &globalOptions{}
	root := newRootCommand(g, &IOStreams{})
	leaves := 0
	for _, n := range commandTree(root) {
		want, ok := declaredFormats[n.path]
		if !ok {
			want = output.DefaultFormats
		}
		if got := commandFormats(n.cmd); !slices.Equal(got, want) {
			t.Errorf("%q declares %v, want %v", n.path, got, want)
		}
		if len(n.cmd.Commands) > 0 {
			continue
		}
		leaves++
		for _, f := range want {
			g.Output.Format = string(f)
			if _, err := n.cmd.Before(context.Background(), n.cmd); err != nil {
				t.Errorf("%s -f %s refused: %v", n.path, f, err)
			}
		}
		for _, f := range output.Formats {
			if slices.Contains(want, output.Format(f)) {
				continue
			}
			var out, errb bytes.Buffer
			args := append([]string{"vtpmctl", "-f", f}, strings.Fields(n.path)...)
			code := Main(context.Background(), args, &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
			line := "vtpmctl: -f " + f + " is not available for " + n.path + " (choose from " + output.JoinFormats(want)
			switch f {
			case "prometheus":
				line += "; -f prometheus is for host check, hosts audit and secrets audit"
			case "markdown":
				line += "; -f markdown is for plan checklist"
			}
			line += ")\n"
			if code != exitUsage || out.Len() != 0 || errb.String() != line {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args[1:], code, out.String(), errb.String(), line)
			}
		}
	}
	if leaves < 20 {
		t.Errorf("only %d leaf commands walked", leaves)
	}
}

// TestFormatsAfterCommand: -f given after the command's words is checked
// the same way (urfave/cli parses it at the leaf, after the root's Before
// used to look at argv), and an unknown command is still reported as one.
func TestFormatsAfterCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"image", "show", "checklist", "-f", "markdown"}, "vtpmctl: -f markdown is not available for image show ("},
		{[]string{"image", "bogus", "-f", "markdown"}, `vtpmctl: unknown command "bogus" for vtpmctl image`},
		{[]string{"-f", "prometheus", "completion", "bash"}, "vtpmctl: -f prometheus is not available for completion bash ("},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), append([]string{"vtpmctl"}, tc.args...), &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != exitUsage || out.Len() != 0 || !strings.HasPrefix(errb.String(), tc.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q…", tc.args, code, out.String(), errb.String(), tc.want)
		}
	}
}
