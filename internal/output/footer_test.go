package output

import (
	"bytes"
	"strings"
	"testing"
)

type footed []string

func (f footed) Table() Table {
	return Table{Columns: []string{"c"}, Rows: []Record{{{Name: "c", Value: "x"}}}, Footer: f}
}

// TestFooterOneLine: each footer line is one line of output whatever its
// data, its control characters escaped, so cloud text forges no line.
func TestFooterOneLine(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"evidence: x\nvtpmctl: all checks passed (id)", `evidence: x\nvtpmctl: all checks passed (id)`},
		{"warning: a\r\nb", `warning: a\r\nb`},
		{"title \x1b]0;pwned\a end", `title \x1b]0;pwned\a end`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"sep \u2028line", `sep \u2028line`},
		{"bad \xff byte", `bad \xff byte`},
		{"ordinary bé � name", "ordinary bé � name"},
	} {
		var b bytes.Buffer
		if err := Write(&b, Options{Format: "table"}, footed{tc.line, "last"}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if n := len(lines); n < 2 || lines[n-2] != tc.want || lines[n-1] != "last" {
			t.Errorf("%q: got\n%s\nwant footer %q", tc.line, b.String(), tc.want)
		}
	}
}

// TestShownName: ordinary names read as they are; one with a control
// character is Go-quoted, one line.
func TestShownName(t *testing.T) {
	for in, want := range map[string]string{
		"web-01":                        "web-01",
		"bé été":                        "bé été",
		"x\nvtpmctl: all checks passed": `"x\nvtpmctl: all checks passed"`,
		"\x1b[2J":                       `"\x1b[2J"`,
		"a\u202eb":                      `"a\u202eb"`,
	} {
		if got := ShownName(in); got != want {
			t.Errorf("ShownName(%q) = %s, want %s", in, got, want)
		}
	}
}
