package output

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain name":                       "plain name",
		"é 中 ✓":                            "é 中 ✓",
		"a\x1b]0;pwned\x07b":               "a\uFFFD]0;pwned\uFFFDb",
		"clear\x1b[2J":                     "clear\uFFFD[2J",
		"csi8\u009b31m":                    "csi8\uFFFD31m",
		"cr\roverwrite":                    "cr\uFFFDoverwrite",
		"keep\nlines\tand tabs":            "keep\nlines\tand tabs",
		"del\x7f":                          "del\uFFFD",
		"bad\xffutf8":                      "bad\uFFFDutf8",
		"rlo\u202egpj.exe":                 "rlo\uFFFDgpj.exe",
		"lre\u202a pdf\u202c":              "lre\uFFFD pdf\uFFFD",
		"isolates\u2066\u2067\u2068\u2069": "isolates\uFFFD\uFFFD\uFFFD\uFFFD",
		"marks\u200e\u200f\u061c":          "marks\uFFFD\uFFFD\uFFFD",
		"lro\u202d rle\u202b":              "lro\uFFFD rle\uFFFD",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTerminalWriterSplitRune: a rune split across writes survives whole.
func TestTerminalWriterSplitRune(t *testing.T) {
	var b bytes.Buffer
	w := TerminalWriter(&b)
	s := []byte("x中\x1by")
	w.Write(s[:2])
	w.Write(s[2:])
	if b.String() != "x中\uFFFDy" {
		t.Errorf("got %q", b.String())
	}
}

// TestTableOutputHasNoControlCharacters: hostile names in every column.
func TestTableOutputHasNoControlCharacters(t *testing.T) {
	recs := []Record{{{Name: "name", Value: "srv\x1b[2J\x1b]0;t\x07"}, {Name: "tags", Value: []string{"a\x9bb", "c"}}}}
	for _, f := range []string{"table", "value"} {
		var b bytes.Buffer
		if err := PrintList(TerminalWriter(&b), Options{Format: f}, []string{"name", "tags"}, recs); err != nil {
			t.Fatal(err)
		}
		for _, r := range b.String() {
			if isControl(r) {
				t.Errorf("%s output has control character %U: %q", f, r, b.String())
			}
		}
		if !utf8.ValidString(b.String()) || !strings.Contains(b.String(), "srv") {
			t.Errorf("%s output: %q", f, b.String())
		}
	}
}
