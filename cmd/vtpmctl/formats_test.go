package main

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// declaredFormats is what each command may print beyond the default set:
// docs/output.md's promise (-f prometheus for the three audits, -f markdown
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
	t.Run("declared where built", formatsDeclaredWhereBuilt)
}

// formatsDeclaredWhereBuilt: a command's formats come from its own
// declaration, withFormats around the &cli.Command literal in the
// function that builds it, never from a table elsewhere (keyed by path,
// applied later). Before, guardFormats filled in "secrets audit" from
// pendingFormats, which the tree walk above cannot tell apart.
func formatsDeclaredWhereBuilt(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); !ok || id.Name != "withFormats" {
						return true
					}
					calls++
					if !isCommandLiteral(n.Args[0]) || !regexp.MustCompile(`^new\w*Command$`).MatchString(fn.Name.Name) {
						t.Errorf("%s: withFormats in %s not around the &cli.Command literal of a new…Command: declare formats where the command is built", fset.Position(n.Pos()), fn.Name.Name)
					}
				case *ast.Ident: // the metadata key: withFormats writes it, commandFormats reads it
					if n.Name == "formatsKey" && fn.Name.Name != "withFormats" && fn.Name.Name != "commandFormats" {
						t.Errorf("%s: %s touches a command's formats outside withFormats", fset.Position(n.Pos()), fn.Name.Name)
					}
				}
				return true
			})
		}
	}
	if calls < len(declaredFormats) {
		t.Errorf("%d withFormats calls for %d declarations", calls, len(declaredFormats))
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

// isCommandLiteral: e is &cli.Command{…}.
func isCommandLiteral(e ast.Expr) bool {
	u, ok := e.(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return false
	}
	lit, ok := u.X.(*ast.CompositeLit)
	if !ok {
		return false
	}
	sel, ok := lit.Type.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Command"
}
