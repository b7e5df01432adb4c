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

// walkedFooter counts its walks and when its footer was asked for.
type walkedFooter struct {
	walks, footers int
	walksBefore    int // walks done when the footer was asked for
}

func (w *walkedFooter) Table() Table {
	return Table{Columns: []string{"c"}, Footer: []string{"first"},
		Walk: func(yield func(Record) bool) {
			w.walks++
			yield(Record{{Name: "c", Value: "x"}})
		},
		FooterOf: func() []string {
			w.footers++
			w.walksBefore = w.walks
			return []string{"gathered"}
		}}
}

// TestFooterOfOnlyWhenPrinted: FooterOf is called once, after the rows,
// by a table that prints its footer; value, CSV and -c never call it.
func TestFooterOfOnlyWhenPrinted(t *testing.T) {
	for _, tc := range []struct {
		o       Options
		footers int
	}{
		{Options{Format: "table"}, 1},
		{Options{Format: "table", Columns: []string{"c"}}, 0},
		{Options{Format: "value"}, 0},
		{Options{Format: "csv"}, 0},
	} {
		w := &walkedFooter{}
		var b bytes.Buffer
		if err := Write(&b, tc.o, w); err != nil {
			t.Fatal(err)
		}
		if w.footers != tc.footers {
			t.Errorf("%+v: FooterOf called %d times, want %d", tc.o, w.footers, tc.footers)
		}
		if tc.footers == 1 {
			if w.walksBefore != w.walks || !strings.HasSuffix(b.String(), "first\ngathered\n") {
				t.Errorf("%+v: footer asked for after %d of %d walks; output\n%s", tc.o, w.walksBefore, w.walks, b.String())
			}
		}
	}
	if got := (Table{Footer: []string{"a"}}).FooterLines(); len(got) != 1 || got[0] != "a" {
		t.Errorf("FooterLines without FooterOf: %q", got)
	}
}
