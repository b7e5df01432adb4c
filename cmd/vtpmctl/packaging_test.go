package main

import (
	"strings"
	"testing"
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
