package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// completionClouds is a clouds.yaml for the completion tests, and the
// environment that makes vtpmctl read it.
func completionClouds(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "config", "clouds.yaml")
	if err := os.Mkdir(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`clouds:
  prod:
    auth: {auth_url: "https://keystone.example:5000/v3"}
    region_name: RegionOne
    regions: [RegionTwo, RegionOne]
  staging:
    auth: {auth_url: "https://keystone.staging.example:5000/v3"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", file)
	t.Setenv("OS_CLOUD", "")
	t.Setenv("HOME", dir)
	t.Chdir(dir)
}

// completeWords is what vtpmctl answers for words (the current one last)
// as the bash script asks: the words, the marker, completeWordEnv.
func completeWords(t *testing.T, words ...string) []string {
	t.Helper()
	t.Setenv(completeWordEnv, "1")
	out, errs, code := runCLI(t, append(words, completionFlag)...)
	if code != 0 || errs != "" {
		t.Fatalf("%q: exit %d %s", words, code, errs)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	return got
}

// words are the candidates' words, without their meanings.
func words(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i], _, _ = strings.Cut(l, ":")
	}
	return out
}

// TestCompletions: flag values complete (they did not: --os-cloud,
// -f, --status, --to gave nothing), from clouds.yaml, from what each
// command declares, and in either protocol.
func TestCompletions(t *testing.T) {
	completionClouds(t)
	for _, c := range []struct {
		words []string
		want  []string // exactly, in order
	}{
		{[]string{"--os-cloud", ""}, []string{"prod", "staging"}},
		{[]string{"--os-cloud", "pr"}, []string{"prod", "staging"}}, // the shell keeps prod
		{[]string{"--os-cloud=p"}, []string{"--os-cloud=prod", "--os-cloud=staging"}},
		{[]string{"--os-cloud", "prod", "--os-region-name", ""}, []string{"RegionOne", "RegionTwo"}},
		{[]string{"--os-cloud=staging", "--os-region-name", ""}, nil},
		{[]string{"secrets", "audit", "-f", ""}, []string{"table", "json", "yaml", "value", "csv", "prometheus"}},
		{[]string{"-f", "json", "plan", "checklist", "--format", ""}, []string{"table", "json", "yaml", "value", "csv", "markdown"}},
		{[]string{"-f", ""}, []string{"table", "json", "yaml", "value", "csv", "markdown", "prometheus"}},
		{[]string{"hosts", "audit", "--status", ""}, []string{"fail", "warn", "skip", "pass"}},
		{[]string{"hosts", "audit", "--status", "fail,"}, []string{"fail,fail", "fail,warn", "fail,skip", "fail,pass"}},
		{[]string{"report", "--fail-on", ""}, []string{"fail", "warn"}},
		{[]string{"secrets", "mode-plan", "--to", ""}, []string{"user", "host", "deployment"}},
		{[]string{"host", "check", "--layout", ""}, []string{"auto", "packages", "kolla", "openstack-helm", "openstack-ansible"}},
		{[]string{"flavor", "create", "w1", "--tpm-version", ""}, []string{"1.2", "2.0"}},
		{[]string{"image", "set", "--tpm-model", ""}, []string{"tpm-tis", "tpm-crb"}},
		{[]string{"flavor", "create", "--secret-security", ""}, []string{"user", "host", "deployment"}},
		{[]string{"check", "--image", ""}, nil}, // a name on the cloud: not listed offline
		{[]string{"plan", "apply", ""}, nil},    // a file: the shell's
		{[]string{"secrets", ""}, []string{"audit", "protect", "unprotect", "mode-plan", "help"}},
		{[]string{"help", "host", "secure-boot", ""}, []string{"status", "update", "help"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish", "pwsh"}},
		{[]string{"--os-cloud", "prod", "--", ""}, nil},
	} {
		if got := words(completeWords(t, c.words...)); !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.words, got, c.want)
		}
	}
	releases := words(completeWords(t, "upgrade", "check", "--to", ""))
	if !slices.Contains(releases, "zed") || !slices.Contains(releases, "2026.1") || slices.Contains(releases, "ussuri") {
		t.Errorf("upgrade check --to: %q", releases)
	}
	if got := completeWords(t, "check", "--nova-release", "2024"); !slices.Contains(got, "2024.2:2024.2 Dalmatian (nova 30)") {
		t.Errorf("check --nova-release: %q", got)
	}
	// Flags: the command's and the global ones, meanings without markup
	// and on one line; one given is not offered again unless repeatable.
	got := completeWords(t, "secrets", "audit", "--all-projects", "--status", "fail", "--")
	for _, want := range []string{"--summary:print the summary alone (json/yaml: the document with its lists of rows empty)", "--os-cloud:cloud NAME in clouds.yaml", "--status", "--timeout:per-request TIMEOUT: seconds (300, as openstack takes it) or a duration (30s, 2…"} {
		if !slices.ContainsFunc(got, func(l string) bool { return l == want || strings.HasPrefix(l, want+":") }) {
			t.Errorf("secrets audit --…: no %q in %q", want, got)
		}
	}
	if slices.ContainsFunc(got, func(l string) bool {
		return strings.HasPrefix(l, "--all-projects") || strings.Contains(l, "`") || strings.HasPrefix(l, "-f") || len([]rune(l)) > len("--concurrency:")+80
	}) {
		t.Errorf("secrets audit --…: %q", got)
	}
	if got := words(completeWords(t, "secrets", "audit", "-")); !slices.Contains(got, "-f") || !slices.Contains(got, "-c") {
		t.Errorf("secrets audit -: %q", got)
	}
	// A whole flag is the word being completed: itself, not its values.
	if got := words(completeWords(t, "--os-cloud")); !slices.Contains(got, "--os-cloud") || slices.Contains(got, "prod") {
		t.Errorf("--os-cloud (no space): %q", got)
	}
	// urfave/cli's zsh and fish scripts send the word only when it
	// starts with "-": after a whole flag that takes a value, its values.
	t.Setenv(completeWordEnv, "")
	for args, want := range map[string][]string{
		"--os-cloud":            {"prod", "staging"},
		"secrets audit -f":      {"table", "json", "yaml", "value", "csv", "prometheus"},
		"secrets":               {"audit", "protect", "unprotect", "mode-plan", "help"},
		"hosts audit --status=": {"--status=fail", "--status=warn", "--status=skip", "--status=pass"},
	} {
		out, _, code := runCLI(t, append(strings.Fields(args), completionFlag)...)
		if got := words(strings.Split(strings.TrimSuffix(out, "\n"), "\n")); code != 0 || !slices.Equal(got, want) {
			t.Errorf("%s (urfave/cli's protocol): exit %d %q", args, code, got)
		}
	}
	// No clouds.yaml: no cloud, no error.
	t.Setenv("OS_CLIENT_CONFIG_FILE", filepath.Join(t.TempDir(), "none.yaml"))
	if got := completeWords(t, "--os-cloud", ""); got != nil {
		t.Errorf("--os-cloud without clouds.yaml: %q", got)
	}
}

// freeValues are the placeholders of flags whose values are free: names
// on the cloud, files, numbers, pairs. Every other flag that takes a
// value completes it (TestEveryChoiceCompletes).
var freeValues = regexp.MustCompile(`^(NAME|NAME_OR_ID|ID|UUID|FILE|DIR|N|MB|GB|TIMEOUT|KEY=VALUE|PROJECT|USER_ID|HOST|URL|URI|VCENTER=\[VMNAME=\]FILE|\[VMNAME=\]FILE|VM=VOLUME|VM=SERVER|COLUMN|REGION)$`)

// TestEveryChoiceCompletes: a flag whose value is one of a known set
// completes it, so a new such flag cannot be forgotten; a free one says
// so by its placeholder.
func TestEveryChoiceCompletes(t *testing.T) {
	completionClouds(t)
	root := newRootCommand(&globalOptions{}, &IOStreams{})
	n := 0
	for _, c := range commandTree(root) {
		chain := []*cli.Command{root}
		for _, w := range strings.Fields(c.path) {
			chain = append(chain, chain[len(chain)-1].Command(w))
		}
		for _, f := range c.cmd.Flags {
			if v, ok := f.(cli.VisibleFlag); !takesValue(f) || ok && !v.IsVisible() {
				continue
			}
			n++
			usage := f.(cli.DocGenerationFlag).GetUsage()
			placeholder := ""
			if i := strings.IndexByte(usage, '`'); i >= 0 {
				placeholder, _, _ = strings.Cut(usage[i+1:], "`")
			}
			values := flagValues(c.cmd, chain, f, "", "", []string{"--os-cloud", "prod"})
			if len(values) == 0 && !freeValues.MatchString(placeholder) {
				t.Errorf("%s --%s (%s): no value completes, and %q is no free placeholder", c.path, f.Names()[0], usage, placeholder)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d flags that take a value", n)
	}
	// -c completes the columns a command declares.
	cmd := &cli.Command{Name: "x", Metadata: map[string]any{columnsKey: []string{"host", "status"}}}
	if got := flagValues(cmd, []*cli.Command{root, cmd}, root.Flags[slices.IndexFunc(root.Flags, func(f cli.Flag) bool { return f.Names()[0] == "column" })], "", "", nil); len(got) != 2 || got[0].word != "host" {
		t.Errorf("declared columns: %v", got)
	}
}

// TestBashCompletion drives the bash script in a real bash without the
// bash-completion package (--norc: nothing but the script; urfave/cli's
// called its _get_comp_words_by_ref, "command not found" at every TAB),
// and, where the package is installed, with it sourced first: COMP_WORDS
// split as bash splits them (at "=" and ":"), COMP_CWORD, COMP_LINE.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	completionClouds(t)
	t.Setenv(completeWordEnv, "")
	script, _, code := runCLI(t, "completion", "bash")
	if code != 0 || strings.Contains(script, "_get_comp_words_by_ref") || strings.Contains(script, "eval") {
		t.Fatalf("completion bash: exit %d\n%s", code, script)
	}
	file := filepath.Join(t.TempDir(), "vtpmctl.bash")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	setups := map[string]string{"without bash-completion": ""}
	const pkg = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(pkg); err == nil {
		setups["with bash-completion"] = ". " + pkg + "\n"
	} else {
		t.Logf("%s absent (the bash-completion package is not installed): tested without it only", pkg)
	}
	for name, setup := range setups {
		for _, c := range []struct {
			line  string   // what was typed, the cursor at its end
			words []string // COMP_WORDS as bash splits line
			typ   string   // COMP_TYPE: 9 completes, 63 lists
			want  []string // COMPREPLY
		}{
			{"vtpmctl sec", []string{"vtpmctl", "sec"}, "9", []string{"secrets"}},
			{"vtpmctl --os-cloud ", []string{"vtpmctl", "--os-cloud", ""}, "9", []string{"prod", "staging"}},
			{"vtpmctl --os-cloud st", []string{"vtpmctl", "--os-cloud", "st"}, "9", []string{"staging"}},
			{"vtpmctl --os-cloud", []string{"vtpmctl", "--os-cloud"}, "9", []string{"--os-cloud"}},
			{"vtpmctl --os-cloud=p", []string{"vtpmctl", "--os-cloud", "=", "p"}, "9", []string{"prod"}},
			{"vtpmctl --os-cloud=", []string{"vtpmctl", "--os-cloud", "="}, "9", []string{"=prod", "=staging"}},
			{"vtpmctl secrets audit -f ", []string{"vtpmctl", "secrets", "audit", "-f", ""}, "9", []string{"table", "json", "yaml", "value", "csv", "prometheus"}},
			{"vtpmctl secrets audit --status fail,w", []string{"vtpmctl", "secrets", "audit", "--status", "fail,w"}, "9", []string{"fail,warn"}},
			{"vtpmctl upgrade check --to 2026", []string{"vtpmctl", "upgrade", "check", "--to", "2026"}, "9", []string{"2026.1", "2026.2"}},
			{"vtpmctl upgrade check --to 2026", []string{"vtpmctl", "upgrade", "check", "--to", "2026"}, "63", []string{"2026.1  -- 2026.1 Gazpacho (nova 33)", "2026.2  -- 2026.2 Hibiscus (nova 34)"}},
			{"vtpmctl secrets mode-plan --to d", []string{"vtpmctl", "secrets", "mode-plan", "--to", "d"}, "9", []string{"deployment"}},
			{"vtpmctl hosts audit --su", []string{"vtpmctl", "hosts", "audit", "--su"}, "9", []string{"--summary"}},
			{"vtpmctl check --flavor-spec hw:tpm_model=tpm-crb --nova-r", []string{"vtpmctl", "check", "--flavor-spec", "hw", ":", "tpm_model", "=", "tpm-crb", "--nova-r"}, "9", []string{"--nova-release"}},
			{"vtpmctl plan apply ", []string{"vtpmctl", "plan", "apply", ""}, "9", nil}, // files: bash's -o default
		} {
			// COMPREPLY one a line, then bash's stderr
			cmd := exec.Command(bash, "--norc", "--noprofile", "-c", setup+`. "$1"; shift
COMP_LINE=$1 COMP_POINT=${#1} COMP_TYPE=$2; shift 2
COMP_WORDS=("$@") COMP_CWORD=$(($# - 1))
_vtpmctl_complete
printf '%s\n' "${COMPREPLY[@]}"
complete -p vtpmctl >&2`, "bash", file, c.line, c.typ)
			cmd.Args = append(cmd.Args, c.words...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Errorf("%s: %q: %v %s", name, c.line, err, errb.String())
				continue
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(got) == 1 && got[0] == "" {
				got = nil
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: %q (COMP_TYPE %s):\n got %q\nwant %q", name, c.line, c.typ, got, c.want)
			}
			if e := errb.String(); e != "complete -o bashdefault -o default -F _vtpmctl_complete vtpmctl\n" {
				t.Errorf("%s: %q: stderr %q", name, c.line, e)
			}
		}
	}
}
