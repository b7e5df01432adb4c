package quote

import (
	"os/exec"
	"strings"
	"testing"
)

func TestShellRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"plain", "it's", "$(id)", "`id`", "a b", "-rf", "", "'", "a\\b", "x;y", "é"} {
		out, err := exec.Command("sh", "-c", `printf %s `+Shell(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("Shell(%q) = %s: sh printed %q (%v)", s, Shell(s), out, err)
		}
	}
	if Shell("-rf") == "-rf" {
		t.Error("a leading dash stays bare")
	}
}

func TestCSVCellAndMarkdown(t *testing.T) {
	for in, want := range map[string]string{"=1+1": "'=1+1", "+x": "'+x", "-x": "'-x", "@x": "'@x", "\tx": "'\tx", "ok": "ok", "": ""} {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q", in, got)
		}
	}
	got := Markdown("a\n## b | <script> *c*")
	if strings.ContainsAny(got, "\n<>") || !strings.Contains(got, `\|`) || !strings.Contains(got, `\#\#`) {
		t.Errorf("Markdown: %q", got)
	}
	if c := ShellComment("x\nrm -rf /"); strings.Contains(c, "\n") {
		t.Errorf("ShellComment: %q", c)
	}
}
