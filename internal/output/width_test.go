package output

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapLine(t *testing.T) {
	for _, c := range []struct {
		in     string
		n      int
		indent string
		want   []string
	}{
		{"short", 10, "", []string{"short"}},
		{"one two three four", 9, "", []string{"one two", "three", "four"}},
		{"abcdefghijkl", 5, "", []string{"abcde", "fghij", "kl"}},
		{"a reallylongword b", 6, "", []string{"a", "really", "longwo", "rd b"}},
		{"footer words wrap here", 10, "  ", []string{"footer", "  words", "  wrap", "  here"}},
		{"no limit at all", 0, "", []string{"no limit at all"}},
		{"", 5, "", []string{""}},
	} {
		got := wrapLine(c.in, c.n, c.indent)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("wrapLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		for _, l := range got {
			if c.n > 0 && utf8.RuneCountInString(l) > c.n {
				t.Errorf("%q wider than %d", l, c.n)
			}
		}
	}
}

func TestFitWidths(t *testing.T) {
	for _, c := range []struct {
		width []int
		max   int
		want  []int
	}{
		{[]int{5, 5}, 0, []int{5, 5}},            // no limit
		{[]int{5, 5}, 17, []int{5, 5}},           // fits: 1 + 2*3 + 10
		{[]int{4, 60, 40}, 50, []int{4, 18, 18}}, // the wide give way first
		{[]int{30, 30}, 20, []int{8, 8}},         // never below minColumn
	} {
		if got := fitWidths(c.width, c.max); !reflect.DeepEqual(got, c.want) {
			t.Errorf("fitWidths(%v, %d) = %v, want %v", c.width, c.max, got, c.want)
		}
	}
}

// TestTableWidth: MaxWidth wins, then COLUMNS; a writer that is no
// terminal without COLUMNS (a pipe) never wraps.
func TestTableWidth(t *testing.T) {
	long := strings.Repeat("word ", 30)
	v := List{Columns: []string{"id", "text"}, Rows: []Record{{{"id", "1"}, {"text", long}}}, Footer: []string{long}}
	for _, c := range []struct {
		columns string
		max     int
		widest  int
	}{
		{"", 0, 160}, {"60", 0, 60}, {"60", 40, 40}, {"60", -1, 160}, {"junk", 0, 160},
	} {
		t.Setenv("COLUMNS", c.columns)
		var b bytes.Buffer
		if err := Write(&b, Options{Format: "table", MaxWidth: c.max}, v); err != nil {
			t.Fatal(err)
		}
		widest := 0
		for _, l := range strings.Split(b.String(), "\n") {
			widest = max(widest, utf8.RuneCountInString(l))
		}
		if c.widest == 160 && widest < 150 || c.widest != 160 && widest > c.widest {
			t.Errorf("COLUMNS=%q MaxWidth=%d: widest line %d, want %d", c.columns, c.max, widest, c.widest)
		}
	}
}
