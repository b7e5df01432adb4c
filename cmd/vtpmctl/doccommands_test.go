package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// A command line a document or a --help shows: where, and the text.
type docCommand struct {
	where string // "README.md:52", "secrets audit --help"
	line  string // from "vtpmctl" to the end of its shell command
}

// docCommands are the vtpmctl command lines of README.md's and
// docs/*.md's sh blocks (a line continued with "\" joined) and of every
// command's --help EXAMPLES (docs/cli shows the same).
func docCommands(t *testing.T) []docCommand {
	t.Helper()
	var out []docCommand
	files, _ := filepath.Glob("../../docs/*.md")
	for _, f := range append([]string{"../../README.md"}, files...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(f, "../../")
		inSh := false
		lines := strings.Split(string(raw), "\n")
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			switch {
			case strings.HasPrefix(l, "```"):
				inSh = slices.Contains([]string{"```sh", "```bash", "```console"}, strings.TrimSpace(l))
				if l == "```" {
					inSh = false
				}
				continue
			case !inSh:
				continue
			}
			at := i + 1
			for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
				i++
				l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[i])
			}
			if c, ok := commandIn(l); ok {
				out = append(out, docCommand{fmt.Sprintf("%s:%d", name, at), c})
			}
		}
	}
	root := newRootCommand(&globalOptions{}, &IOStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	// the completion command is added when the root runs
	_ = root.Run(context.Background(), []string{"vtpmctl", "completion", "--help"})
	for _, n := range commandTree(root) {
		_, examples, _ := splitHelp(n.cmd.Description)
		for _, e := range examples {
			if c, ok := commandIn(e); ok {
				out = append(out, docCommand{strings.TrimSpace("vtpmctl "+n.path) + " --help", c})
			}
		}
	}
	return out
}

// commandIn is the vtpmctl command in a shell line: from the word
// vtpmctl (after a prompt, sudo, "in", "<(") to where the shell command
// ends.
var vtpmctlWord = regexp.MustCompile(`(^|[\s(])vtpmctl\s`)

func commandIn(l string) (string, bool) {
	m := vtpmctlWord.FindStringIndex(l)
	if m == nil || strings.HasPrefix(strings.TrimSpace(l), "#") {
		return "", false
	}
	if l[m[0]] != 'v' {
		m[0]++
	}
	return strings.TrimSpace(l[m[0]:]), true
}

// shellArgs splits a command line as sh would, up to the end of its
// command (| ; & && || ")" or a comment): quotes removed, redirections
// dropped (redirected says stdout was), $(hostname) as "host1", a glob
// expanded in dir when it matches.
func shellArgs(line, dir string) (args []string, redirected bool) {
	var cur strings.Builder
	inWord, redirect := false, false
	end := func() {
		if !inWord {
			return
		}
		w := cur.String()
		cur.Reset()
		inWord = false
		if redirect {
			redirect = false
			return
		}
		if strings.ContainsAny(w, "*?[") {
			if m, _ := filepath.Glob(filepath.Join(dir, w)); len(m) > 0 {
				for _, f := range m {
					rel, _ := filepath.Rel(dir, f)
					args = append(args, rel)
				}
				return
			}
		}
		args = append(args, w)
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'' || r == '"':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != r {
				j++
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '$' && strings.HasPrefix(string(rs[i:]), "$(hostname)"):
			inWord = true
			cur.WriteString("host1")
			i += len("$(hostname)") - 1
		case r == ' ' || r == '\t':
			end()
		case r == '>' || r == '<':
			if w := cur.String(); inWord && (w == "2" || w == "1") {
				cur.Reset()
				inWord = false
			} else {
				end()
			}
			if r == '>' {
				redirected = true
			}
			redirect = true
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '&') {
				i++
			}
		case r == '|' || r == ';' || r == '&' || r == ')' || r == '#' && !inWord:
			end()
			return args, redirected
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	end()
	return args, redirected
}

// runStubbed parses args as vtpmctl does, with every command's action
// replaced by nothing: the flags, their values, -f and the command itself
// are checked, nothing runs.
func runStubbed(args []string) (int, string) {
	var out, errb bytes.Buffer
	root := newRootCommand(&globalOptions{}, &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb})
	for _, n := range commandTree(root) {
		if len(n.cmd.Commands) == 0 && n.cmd.Action != nil {
			n.cmd.Action = func(context.Context, *cli.Command) error { return nil }
		}
	}
	err := root.Run(context.Background(), append([]string{"vtpmctl"}, args...))
	if err == nil && notFound(root) {
		return exitUsage, errb.String()
	}
	return exitCode(err, &errb), errb.String()
}

// needsCloud: the line a command without any cloud configured ends with.
var needsCloud = regexp.MustCompile(`^vtpmctl: (no cloud configured|cloud "[^"]+": no clouds.yaml found)`)

// fakeable are the commands the standard fake cloud (the local cloud's
// captured answers) serves whole: their documented lines run there.
var fakeable = []string{"image list", "flavor list", "volume list", "hosts audit", "secrets audit", "upgrade check", "report"}

// pathOfArgs is the command args name ("secrets audit").
func pathOfArgs(root *cli.Command, args []string) string {
	cmd, path := root, ""
	for _, a := range args {
		if sub := cmd.Command(a); sub != nil && !strings.HasPrefix(a, "-") {
			cmd, path = sub, strings.TrimSpace(path+" "+a)
		}
	}
	return path
}

// TestDocumentedCommands runs every vtpmctl command line of README.md,
// docs/*.md and the commands' --help EXAMPLES that needs no live host,
// vCenter or cloud, in a directory holding the files they name (the
// examples' plan, catalogue and inventory; host reports; saved results):
// none may be a usage error, and each exits as documented (0, or 1 for a
// finding). A line that needs a cloud runs against the standard fake
// cloud when it serves that command whole; the others are listed as
// needing a live cloud (the integration phase runs them) after every
// check before the cloud (flags, values, files, the bulk-write gate) has
// passed without one. A line that needs this host's nova-compute and
// libvirt, or a vCenter, is parsed only.
func TestDocumentedCommands(t *testing.T) {
	cmds := docCommands(t)
	if len(cmds) < 150 {
		t.Fatalf("only %d command lines found", len(cmds))
	}
	dir := docWorkdir(t)
	t.Chdir(dir)
	root := newRootCommand(&globalOptions{}, &IOStreams{})
	var live, parsed []string
	ran, faked := 0, 0
	noCloud := func() {
		t.Setenv("OS_CLIENT_CONFIG_FILE", filepath.Join(dir, "no-clouds.yaml"))
		t.Setenv("OS_CLOUD", "")
		t.Setenv("OS_AUTH_URL", "")
	}
	for _, c := range cmds {
		args, _ := shellArgs(c.line, dir)
		if len(args) == 0 || args[0] != "vtpmctl" {
			t.Errorf("%s: %q: not a vtpmctl command", c.where, c.line)
			continue
		}
		args = args[1:]
		path := pathOfArgs(root, args)
		what := c.where + ": " + c.line
		// Every line parses: a known command, known flags, values of
		// their kind, a format the command prints.
		if code, errs := runStubbed(args); code != 0 {
			t.Errorf("%s\n  does not parse: exit %d %s", what, code, errs)
			continue
		}
		switch {
		case path == "host check" || strings.HasPrefix(path, "host secure-boot"):
			parsed = append(parsed, what+" (this host's nova-compute and libvirt)")
			continue
		case slices.Contains(args, "--vcenter"):
			parsed = append(parsed, what+" (a vCenter)")
			continue
		}
		noCloud()
		out, errs, code := runCLI(t, args...)
		if needsCloud.MatchString(errs) && code == exitUsage {
			// the fake's projects, servers and hosts are its own: a line
			// naming one needs the cloud it was written for (and its
			// Glance takes no property filter, --select)
			if !slices.Contains(fakeable, path) || slices.ContainsFunc(args, func(a string) bool { return a == "--drain" || a == "--project" || a == "--server" || a == "--select" }) {
				live = append(live, what)
				continue
			}
			// the standard fake cloud, named as the line names its cloud
			fc := fakecloud.New(t).Standard()
			name := "prod"
			for i, a := range args {
				if a == "--os-cloud" && i+1 < len(args) {
					name = args[i+1]
				}
			}
			clouds := filepath.Join(t.TempDir(), "clouds.yaml")
			if err := os.WriteFile(clouds, []byte(fakecloud.CloudsYAML(name, fc.URL, fakecloud.Scope{ProjectID: fakecloud.ProjectID})), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("OS_CLIENT_CONFIG_FILE", clouds)
			t.Setenv("OS_CLOUD", name) // a line without --os-cloud: OS_CLOUD, as its page says
			out, errs, code = runCLI(t, args...)
			faked++
			what += " (fake cloud)"
		} else {
			ran++
		}
		if code != 0 && code != exitFailed {
			t.Errorf("%s\n  exit %d: %s%.300s", what, code, errs, out)
		}
	}
	t.Logf("%d command lines: %d ran here, %d against the fake cloud, %d parsed only, %d need a live cloud", len(cmds), ran, faked, len(parsed), len(live))
	for _, l := range parsed {
		t.Logf("parsed only: %s", l)
	}
	for _, l := range live {
		t.Logf("needs a live cloud (integration phase): %s", l)
	}
}

// docWorkdir is a directory with the files the documented lines name.
func docWorkdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for dst, src := range map[string]string{
		"plan.yaml":                "../../examples/plan.yaml",
		"catalogue.yaml":           "../../examples/catalogue.yaml",
		"RVTools_tabvInfo.csv":     "../../examples/inventory/RVTools_tabvInfo.csv",
		"vms.json":                 "../../examples/inventory/govc-vm.info.json",
		"inventory/vms.json":       "../../examples/inventory/govc-vm.info.json",
		"RVTools_export_vInfo.csv": "../../examples/inventory/RVTools_tabvInfo.csv",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "reports"), 0o755)
	for name, doc := range map[string]string{
		"devcloud":      `{"schema": "vtpmctl.host-check/1", "host": "devcloud", "nova_release": "zed", "checks": [], "traits": ["COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_UEFI_SECURE_BOOT"], "vtpm_guests": [], "facts": {}}`,
		"devcloud-fake": `{"schema": "vtpmctl.host-check/1", "host": "devcloud-fake", "nova_release": "zed", "checks": [], "traits": ["COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_UEFI_SECURE_BOOT"], "vtpm_guests": [], "facts": {"hypervisor_hostname": "vm"}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, "reports", name+".json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// saved results for report --from, as the fake cloud answers
	fc := fakecloud.New(t).Standard()
	for file, args := range map[string][]string{
		"fleet.json":   {"--os-cloud", "fake", "hosts", "audit", "-f", "json"},
		"secrets.json": {"--os-cloud", "fake", "secrets", "audit", "--all-projects", "-f", "json"},
	} {
		out, errs, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = fc
	return dir
}
