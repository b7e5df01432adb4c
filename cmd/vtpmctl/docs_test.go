package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCLIReference: docs/cli is what the commands generate now. A flag,
// example or exit status changed without regenerating fails here, with
// the command that refreshes the pages.
func TestCLIReference(t *testing.T) {
	want := generatedReference(t)
	dir := filepath.Join("..", "..", "docs", "cli")
	have, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	stale := 0
	for _, f := range have {
		name := filepath.Base(f)
		text, ok := want[name]
		if !ok {
			t.Errorf("docs/cli/%s documents no command", name)
			stale++
			continue
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != text {
			t.Errorf("docs/cli/%s differs from the command's help", name)
			stale++
		}
		delete(want, name)
	}
	for name := range want {
		t.Errorf("docs/cli/%s is missing", name)
		stale++
	}
	if stale > 0 {
		t.Errorf("%d page(s) out of date: run `make docs` (%s)", stale, refreshDocs)
	}
}

// TestCLIReferencePages: every visible command has a page that links its
// parent and children, shows its examples and exit status, and lists the
// formats the command really accepts; hidden commands have none.
func TestCLIReferencePages(t *testing.T) {
	pages := generatedReference(t)
	check := pages["vtpmctl_host_check.md"]
	for _, want := range []string{
		"# vtpmctl host check\n",
		"```\nvtpmctl host check [options]\n```",
		"## Examples\n\n```sh\nvtpmctl host check\n",
		"| 1 | at least one check failed; every finding is reported before exiting |",
		"`-f` `table`, `json`, `yaml`, `value`, `csv`, `prometheus`",
		"- [vtpmctl host](vtpmctl_host.md)",
		"| `--root DIR` |",
	} {
		if !strings.Contains(check, want) {
			t.Errorf("vtpmctl_host_check.md lacks %q", want)
		}
	}
	if host := pages["vtpmctl_host.md"]; !strings.Contains(host, "| [`vtpmctl host check`](vtpmctl_host_check.md) |") {
		t.Errorf("vtpmctl_host.md does not link its child:\n%s", host)
	}
	if !strings.Contains(pages["README.md"], "| [`vtpmctl secrets audit`](vtpmctl_secrets_audit.md) |") {
		t.Errorf("the index lacks secrets audit")
	}
	for name := range pages {
		if strings.Contains(name, "_man") || strings.Contains(name, "_help") {
			t.Errorf("%s: a hidden command has a page", name)
		}
	}
	if len(pages) < 30 {
		t.Errorf("%d pages", len(pages))
	}
}

// generatedReference runs the regeneration command itself into a temp
// dir: the tree Main builds (completion, guards, help templates) is the
// one documented, not a tree a test assembles.
func generatedReference(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	if _, errs, code := runCLI(t, "man", "--markdown", "--dir", dir); code != 0 {
		t.Fatalf("man --markdown --dir: exit %d %s", code, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	pages := map[string]string{}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(f)] = string(text)
	}
	return pages
}

func TestMarkdownEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SECRET_SECURITY_* traits", `SECRET\_SECURITY\_\* traits`},
		{"resource_id=<server uuid>", `resource\_id=&lt;server uuid&gt;`},
		{"- not a list", `\- not a list`},
		{"2. not a list", `2\. not a list`},
		{"# not a heading", `\# not a heading`},
		{"see [x](y) and `z`", "see \\[x\\](y) and \\`z\\`"},
		{"a & b", "a &amp; b"},
		{"2.0 stays", "2.0 stays"},
	} {
		if got := mdEscape(c.in); got != c.want {
			t.Errorf("mdEscape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := mdCell("bash|zsh"); got != `bash\|zsh` {
		t.Errorf("mdCell: %q", got)
	}
	var b strings.Builder
	mdProse(&b, "Layouts:\n  packages  /etc/nova\n  kolla     /etc/kolla\nThen prose.")
	if want := "Layouts:\n\n```text\npackages  /etc/nova\nkolla     /etc/kolla\n```\n\nThen prose.\n\n"; b.String() != want {
		t.Errorf("mdProse:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestSplitHelp(t *testing.T) {
	about, ex, exit := splitHelp(commandHelp("Does X.\n\n  indented", []string{"vtpmctl x", "vtpmctl x -f json"},
		"EXIT STATUS:\n   0  fine\n   1  a check failed, or\n      more\n   2  usage"))
	if about != "Does X.\n\n  indented" || !slices.Equal(ex, []string{"vtpmctl x", "vtpmctl x -f json"}) {
		t.Errorf("about %q examples %q", about, ex)
	}
	// every section with statuses gets the interrupt's (130, 143)
	if want := []exitRow{{"0", "fine"}, {"1", "a check failed, or more"}, {"2", "usage"}}; len(exit) != 5 || !slices.Equal(exit[:3], want) ||
		exit[3].status != "130" || exit[4].status != "143" {
		t.Errorf("exit %v, want %v and 130, 143", exit, want)
	}
}

// TestManPages: man --dir writes vtpmctl.1 and a page per command whose
// text never reads as a roff request, each naming its family under SEE
// ALSO; a page of a command that no longer exists is removed.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "vtpmctl-gone.1")
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "man", "--dir", dir); code != 0 {
		t.Fatalf("man --dir: exit %d %s", code, errs)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale page kept: %v", err)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if len(pages) < 30 {
		t.Fatalf("%d man pages", len(pages))
	}
	page, err := os.ReadFile(filepath.Join(dir, "vtpmctl-secrets-audit.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".TH VTPMCTL-SECRETS-AUDIT 1", ".SH NAME\nvtpmctl-secrets-audit \\- ", ".SH EXAMPLES", ".SH EXIT STATUS\n.TP\n.B 0\n", ".SH SEE ALSO\n\\fBvtpmctl-secrets\\fR(1)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("vtpmctl-secrets-audit.1 lacks %q", want)
		}
	}
	request := regexp.MustCompile(`^\.(TH|SH|SS|TP|B|PP|nf|fi)( |$)`)
	for _, p := range pages {
		text, _ := os.ReadFile(p)
		for _, l := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(l, ".") && !request.MatchString(l) || strings.HasPrefix(l, "'") {
				t.Errorf("%s: a text line reads as a roff request: %q", filepath.Base(p), l)
			}
		}
	}
	if _, errs, code := runCLI(t, "man", "--markdown"); code != 2 || !strings.Contains(errs, "--markdown needs --dir") {
		t.Errorf("man --markdown without --dir: exit %d %s", code, errs)
	}
}

// TestMetricsDocumented: the metrics table in docs/output.md names every
// metric the code emits, and no other (names are an interface alert rules
// rely on).
func TestMetricsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "output.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(vtpmctl_[a-z_]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	emitted := map[string]bool{}
	name := regexp.MustCompile(`"(vtpmctl_[a-z_]+)"`)
	for _, pkg := range []string{"domain/hostcheck", "domain/fleet", "domain/vtpmsecret"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range name.FindAllStringSubmatch(string(src), -1) {
				emitted[m[1]] = true
			}
		}
	}
	if len(emitted) < 15 {
		t.Fatalf("found %d metric names in the code", len(emitted))
	}
	for m := range emitted {
		if !documented[m] {
			t.Errorf("%s is emitted but not in docs/output.md's metrics table", m)
		}
	}
	for m := range documented {
		if !emitted[m] {
			t.Errorf("docs/output.md documents %s, which no code emits", m)
		}
	}
}
