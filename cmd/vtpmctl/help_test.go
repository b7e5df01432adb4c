package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/nova"
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

// TestOneJunitFlag: every command with --junit shows junitFlag's help
// line; the five copies had drifted (plan verify lost the device note).
func TestOneJunitFlag(t *testing.T) {
	want := junitFlag(new(string)).(fmt.Stringer).String()
	n := 0
	for _, c := range commandTree(newRootCommand(&globalOptions{}, &IOStreams{})) {
		for _, f := range c.cmd.Flags {
			if f.Names()[0] != "junit" {
				continue
			}
			n++
			if got := f.(fmt.Stringer).String(); got != want {
				t.Errorf("%s --junit:\n got %s\nwant %s", c.path, got, want)
			}
		}
	}
	if n < 5 {
		t.Errorf("--junit on %d commands, want at least 5 (host check, hosts audit, hosts report, secrets audit, plan verify)", n)
	}
}

// TestFieldErrorInCallersWords: a nova.FieldError reaches the user in the
// caller's words, context kept, exit 2: flags for the image and flavor
// commands, the plan's keys for plan apply (which said --secret-security
// about a plan file's secret_security before).
func TestFieldErrorInCallersWords(t *testing.T) {
	mode := nova.ValidateFlavorRequest(nova.FlavorRequest{SecretSecurity: "vault"}, nova.Gazpacho)
	_, _, model := nova.PlanImageSet(map[string]string{"hw_tpm_model": "tpm-crb"}, nova.ImageRequest{TPMVersion: "1.2"}) // a Glance image's CRB model
	for _, c := range []struct {
		err  error
		name func(nova.Field) string
		want string
	}{
		{nova.ValidateTPM("3.0", ""), flagName, `invalid --tpm-version "3.0" (did you mean "2.0"?)`},
		{nova.ValidateTPM("4", ""), flagName, `invalid --tpm-version "4" (choose 1.2 or 2.0)`},
		{mode, flagName, `invalid --secret-security "vault" (choose user, host, deployment)`},
		{fmt.Errorf("plan p.yaml: %w", fmt.Errorf("flavor w1: %w", mode)), planKey, `plan p.yaml: flavor w1: invalid secret_security "vault" (choose user, host, deployment)`},
		{fmt.Errorf("plan p.yaml: %w", fmt.Errorf("image win: %w", model)), planKey, "plan p.yaml: image win: resulting image would be refused by Nova: TPM model CRB is only valid with TPM version 2.0. (set tpm_model too)"},
		{model, flagName, "resulting image would be refused by Nova: TPM model CRB is only valid with TPM version 2.0. (set --tpm-model too)"},
		{fmt.Errorf("plan p.yaml: %w", nova.ValidateTPM("1.2", "tpm-crb")), planKey, "plan p.yaml: tpm_model tpm-crb with tpm_version 1.2: Nova refuses it (TPM model CRB is only valid with TPM version 2.0.)"},
	} {
		err := inWords(c.err, c.name)
		var ue *usageError
		if !errors.As(err, &ue) || err.Error() != c.want {
			t.Errorf("%v:\n got %v\nwant %s", c.err, err, c.want)
		}
		var errb strings.Builder
		if code := exitCode(err, &errb); code != exitUsage || errb.String() != "vtpmctl: "+c.want+"\n" {
			t.Errorf("%v: exit %d %q", c.err, code, errb.String())
		}
	}
	// One no command named (image set, volume set return nova's error as
	// is) reads in the CLI's flags, exit 2.
	_, _, win := nova.PlanImageSet(nil, nova.ImageRequest{Windows: true, TPMVersion: "1.2"})
	var errb strings.Builder
	if code := exitCode(fmt.Errorf("volume v1: %w", win), &errb); code != exitUsage || !strings.HasPrefix(errb.String(), "vtpmctl: volume v1: --windows needs TPM 2.0 (") {
		t.Errorf("unnamed field error: exit %d %q", code, errb.String())
	}
	if plain := errors.New("x"); inWords(plain, flagName) != plain {
		t.Error("inWords changed an error without a field")
	}
}

// TestSubcommandHelp: a command's help lists -f with only the formats it
// prints and points to vtpmctl --help for the other global options,
// instead of repeating all of them (and every format) in each command.
func TestSubcommandHelp(t *testing.T) {
	t.Setenv("COLUMNS", "1000") // each option on one line (TestHelpFitsWidth wraps them)
	n := 0
	for _, c := range commandTree(newRootCommand(&globalOptions{}, &IOStreams{}))[1:] {
		var out, errb strings.Builder
		args := append([]string{"vtpmctl"}, strings.Fields(c.path)...)
		if code := Main(context.Background(), append(args, "--help"), &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
			t.Errorf("%s --help: exit %d %s", c.path, code, errb.String())
			continue
		}
		n++
		help := out.String()
		_, global, ok := strings.Cut(help, "\nGLOBAL OPTIONS:\n")
		if !ok || !strings.HasSuffix(global, ": see vtpmctl --help\n") || strings.Contains(global, "--os-cacert FILE") || strings.Contains(global, "[$OS_CLOUD]") {
			t.Errorf("%s --help, global options:\n%s", c.path, global)
			continue
		}
		if len(c.cmd.Commands) > 0 {
			if strings.Contains(global, "--format") {
				t.Errorf("%s (a group) lists -f:\n%s", c.path, global)
			}
			continue
		}
		var names []string
		for _, f := range commandFormats(c.cmd) {
			names = append(names, string(f))
		}
		if want := "output FORMAT: " + strings.Join(names, ", ") + " (default: "; !strings.Contains(global, want) {
			t.Errorf("%s --help lacks %q:\n%s", c.path, want, global)
		}
	}
	if n < 20 {
		t.Errorf("only %d commands' help read", n)
	}
}

// helpOf is vtpmctl ARGS' stdout at COLUMNS=width (no terminal), failing
// the test on another exit than 0.
func helpOf(t *testing.T, width int, args ...string) string {
	t.Helper()
	t.Setenv("COLUMNS", fmt.Sprint(width))
	out, errs, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d %s", args, code, errs)
	}
	return out
}

// TestHelpFitsWidth: every command's help fits COLUMNS (80 without it in
// a pipe: secrets audit's had a 539-column line), with no markup, and
// says what the unwrapped help says, word for word (an example's line
// break is " \").
func TestHelpFitsWidth(t *testing.T) {
	for _, c := range commandTree(newRootCommand(&globalOptions{}, &IOStreams{})) {
		args := append(strings.Fields(c.path), "--help")
		wide := helpOf(t, 10000, args...)
		for _, width := range []int{80, 60} {
			help := helpOf(t, width, args...)
			for _, l := range strings.Split(help, "\n") {
				if n := len([]rune(l)); n > width && strings.Contains(strings.TrimSpace(l), " ") {
					t.Errorf("%s --help at %d columns: a line of %d:\n%s", c.path, width, n, l)
				}
			}
			if strings.Contains(help, "`") {
				t.Errorf("%s --help shows a backtick", c.path)
			}
			words := strings.Fields(strings.ReplaceAll(help, " \\\n", "\n"))
			if want := strings.Fields(wide); strings.Join(words, " ") != strings.Join(want, " ") {
				t.Errorf("%s --help at %d columns says other words than unwrapped:\n%s", c.path, width, help)
			}
		}
	}
	t.Setenv("COLUMNS", "")
	if out, _, _ := runCLI(t, "secrets", "audit", "--help"); !strings.Contains(out, "\n   --concurrency N                          at most N requests in flight at\n") {
		t.Errorf("secrets audit --help in a pipe without COLUMNS is not 80 columns wide:\n%s", out)
	}
}

// TestFitHelp: the shapes of help lines and how each wraps.
func TestFitHelp(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"   short", "   short"},
		{"   `NAME` of the `FILE`", "   NAME of the FILE"},
		// prose carries into its paragraph's next line
		{"   aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj\n   kkkk\n\n   llll",
			"   aaaa bbbb cccc dddd eeee ffff gggg\n   hhhh iiii jjjj kkkk\n\n   llll"},
		// an option hangs under its usage
		{"   --name VALUE  aaaa bbbb cccc dddd eeee ffff gggg hhhh",
			"   --name VALUE  aaaa bbbb cccc dddd\n                 eeee ffff gggg hhhh"},
		// a row whose second line is deeper carries into it
		{"     SECRET-CONSUMER whether aaaa bbbb cccc dddd\n                     eeee",
			"     SECRET-CONSUMER whether aaaa bbbb\n                     cccc dddd eeee"},
		// a bullet hangs under its text
		{"   - aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii",
			"   - aaaa bbbb cccc dddd eeee ffff gggg\n     hhhh iiii"},
		// an example pastes into a shell: quotes whole, redirections with their file
		{"   EXAMPLES:\n      vtpmctl check --image-property 'a b c d e f' --flag x > out.json",
			"   EXAMPLES:\n      vtpmctl check --image-property \\\n          'a b c d e f' --flag x \\\n          > out.json"},
		// one word wider than the line stays whole
		{"   /a/very/long/path/that/does/not/fit/in/forty/columns/at/all ok",
			"   /a/very/long/path/that/does/not/fit/in/forty/columns/at/all\n   ok"},
	} {
		if got := fitHelp(c.in, 40); got != c.want {
			t.Errorf("fitHelp(%q, 40):\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestHelpCommandPath: vtpmctl help A B is A B's help (it was A's),
// and names an unknown word as --help would, exit 2.
func TestHelpCommandPath(t *testing.T) {
	for _, args := range [][]string{{"help", "secrets", "audit"}, {"secrets", "help", "audit"}, {"secrets", "audit", "--help"}, {"--os-cloud", "x", "help", "secrets", "audit"}} {
		if out := helpOf(t, 80, args...); !strings.HasPrefix(out, "NAME:\n   vtpmctl secrets audit - ") {
			t.Errorf("%v:\n%.200s", args, out)
		}
	}
	if out := helpOf(t, 80, "help", "host", "secure-boot", "update"); !strings.HasPrefix(out, "NAME:\n   vtpmctl host secure-boot update - ") {
		t.Errorf("help host secure-boot update:\n%.200s", out)
	}
	for args, want := range map[string]string{
		"help secrets nope": `vtpmctl: unknown command "nope" for vtpmctl secrets; see vtpmctl secrets --help` + "\n",
		"help secrets adit": `vtpmctl: unknown command "adit" for vtpmctl secrets (did you mean "audit"?)` + "\n",
	} {
		out, errs, code := runCLI(t, strings.Fields(args)...)
		if code != exitUsage || out != "" || errs != want {
			t.Errorf("%s: exit %d %q %q", args, code, out, errs)
		}
	}
}
