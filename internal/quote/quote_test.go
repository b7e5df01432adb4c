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
	for _, s := range []string{"plain", "it's", "$(id)", "`id`", "a b", "-rf", "", "'", "a\\b", "x;y", "é",
		"evil\u202e\u2066gpj.exe", "\u202d'x'\u2069", "tab\there", "esc\x1b[2J", "nl\nx", "\u200f\u061c\u200e"} {
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

// TestBidiNeutralised: every bidi control becomes '?' wherever C0/C1 do
// (one line, markdown, shell comments, control checks) and in CSV cells.
func TestBidiNeutralised(t *testing.T) {
	for _, r := range []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c} {
		in := "vm" + string(r) + "exe.pdf"
		for name, got := range map[string]string{
			"OneLine": OneLine(in), "Markdown": Markdown(in), "ShellComment": ShellComment(in), "CSVCell": CSVCell(in),
		} {
			if strings.ContainsRune(got, r) || !strings.Contains(got, "vm?exe.pdf") {
				t.Errorf("%s(%q) = %q", name, in, got)
			}
		}
		if !HasControl(in) {
			t.Errorf("HasControl(%q) is false", in)
		}
	}
	if got := CSVCell("a\nb"); got != "a\nb" {
		t.Errorf("CSVCell changed a line break: %q", got)
	}
}
