package main

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestVersionCompletionMan(t *testing.T) {
	version, commit = "1.2.3", "0123456789ab"
	defer func() { version, commit = "dev", "" }()
	out, _, code := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "vtpmctl version 1.2.3 (commit 0123456789ab, go") {
		t.Errorf("--version: exit %d %q", code, out)
	}
	for shell, want := range map[string]string{"bash": "complete ", "zsh": "#compdef vtpmctl", "fish": "complete -c vtpmctl"} {
		out, errs, code := runCLI(t, "completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d %s\n%.300s", shell, code, errs, out)
		}
	}
	if _, errs, code := runCLI(t, "completion", "tcsh"); code != 2 || !strings.Contains(errs, `unknown command "tcsh"`) {
		t.Errorf("completion tcsh: exit 0 %s", errs)
	}
	out, _, code = runCLI(t, "man")
	if code != 0 || !strings.HasPrefix(out, ".TH VTPMCTL 1") {
		t.Fatalf("man: exit %d %.200s", code, out)
	}
	for _, want := range []string{`.SS "vtpmctl host check"`, `.SS "vtpmctl plan verify PLAN"`, `.SS "vtpmctl secrets audit"`, "EXIT STATUS:", "\\-\\-layout"} {
		if !strings.Contains(out, want) && !strings.Contains(out, strings.ReplaceAll(want, "\\-\\-", "--")) {
			t.Errorf("man page lacks %q", want)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, ".") && !strings.HasPrefix(l, ".TH") && !strings.HasPrefix(l, ".SH") && !strings.HasPrefix(l, ".SS") &&
			!strings.HasPrefix(l, ".TP") && !strings.HasPrefix(l, ".B ") && !strings.HasPrefix(l, ".PP") && l != ".nf" && l != ".fi" {
			t.Errorf("a text line reads as a roff request: %q", l)
		}
	}
	if got := roff(".rm x\n'x \\y"); got != "\\&.rm x\n\\&'x \\ey" {
		t.Errorf("roff %q", got)
	}
}

// packagedFiles are the files packaging/nfpm.yaml installs that come
// from the repository (not the binary, the man pages, the completions
// dist.sh makes): installed path → repository path. A glob's files land
// in its dst directory under their own names, as nfpm puts them.
func packagedFiles(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../../packaging/nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Contents []struct{ Src, Dst string }
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, c := range cfg.Contents {
		if strings.Contains(c.Src, "${") {
			continue // dist.sh's
		}
		matches, err := filepath.Glob(filepath.Join("../..", c.Src))
		if err != nil || len(matches) == 0 {
			t.Errorf("nfpm.yaml: %s matches nothing", c.Src)
			continue
		}
		glob := strings.ContainsAny(c.Src, "*?[")
		for _, m := range matches {
			dst := c.Dst
			if glob {
				dst = path.Join(c.Dst, filepath.Base(m))
			}
			files[dst] = m
		}
	}
	return files
}

// mdLink is a markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestPackagedLinks: every link of every document the packages install
// leads to a file they install (the README linked docs/cli/, docs/schemas/,
// ARCHITECTURE.md and examples the packages did not ship), and the license
// they declare is among them.
func TestPackagedLinks(t *testing.T) {
	files := packagedFiles(t)
	installed := func(p string) bool {
		if _, ok := files[p]; ok {
			return true
		}
		for f := range files { // a directory the packages fill
			if strings.HasPrefix(f, strings.TrimSuffix(p, "/")+"/") {
				return true
			}
		}
		return false
	}
	const doc = "/usr/share/doc/vtpmctl/"
	for _, want := range []string{doc + "README.md", doc + "LICENSE", doc + "ARCHITECTURE.md", doc + "docs/cli/vtpmctl_secrets_audit.md", doc + "docs/schemas/README.md", doc + "examples/catalogue.yaml"} {
		if !installed(want) {
			t.Errorf("the packages do not install %s", want)
		}
	}
	links := 0
	for dst, src := range files {
		if !strings.HasSuffix(dst, ".md") {
			continue
		}
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(text), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			if p := path.Join(path.Dir(dst), target); !installed(p) {
				t.Errorf("%s links to %s: %s is not in the packages", dst, m[1], p)
			}
		}
	}
	if links < 100 {
		t.Errorf("only %d links followed", links)
	}
	// nfpm.yaml's license is the LICENSE file's
	lic, _ := os.ReadFile("../../LICENSE")
	nfpm, _ := os.ReadFile("../../packaging/nfpm.yaml")
	if !strings.Contains(string(nfpm), "\nlicense: Apache-2.0\n") || !strings.Contains(string(lic), "Apache License\n                           Version 2.0, January 2004") {
		t.Error("the packages declare Apache-2.0: LICENSE must hold its text")
	}
}
