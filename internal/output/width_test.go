package output

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
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
		// a word is never cut: one wider than the line is a line of its own
		{"abcdefghijkl", 5, "", []string{"abcdefghijkl"}},
		{"a reallylongword b", 6, "", []string{"a", "reallylongword", "b"}},
		{"id 340ca71c-0001-4000-a000-000000000000 gone", 10, "  ", []string{"id", "  340ca71c-0001-4000-a000-000000000000", "  gone"}},
		{"footer words wrap here", 10, "  ", []string{"footer", "  words", "  wrap", "  here"}},
		{"no limit at all", 0, "", []string{"no limit at all"}},
		{"", 5, "", []string{""}},
		{"ab cd", 1, "  ", []string{"ab", "  cd"}},
		{"abc", 1, "", []string{"abc"}},
	} {
		got := wrapLine(c.in, c.n, c.indent)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("wrapLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if strings.Join(strings.Fields(strings.Join(got, " ")), " ") != strings.Join(strings.Fields(c.in), " ") {
			t.Errorf("wrapLine(%q, %d) lost or cut a word: %q", c.in, c.n, got)
		}
	}
}

func TestFitWidths(t *testing.T) {
	for _, c := range []struct {
		nat, least []int
		max        int
		want       []int
	}{
		{[]int{5, 5}, []int{5, 5}, 0, []int{5, 5}},                  // no limit
		{[]int{5, 5}, []int{1, 1}, 17, []int{5, 5}},                 // fits: 1 + 2*3 + 10
		{[]int{4, 60, 40}, []int{4, 5, 5}, 50, []int{4, 18, 18}},    // the wide give way first
		{[]int{36, 60, 40}, []int{36, 5, 5}, 60, []int{36, 7, 7}},   // an ID keeps its width
		{[]int{36, 60, 40}, []int{36, 12, 5}, 60, []int{36, 12, 5}}, // 53 > the 50 left: the least of each
		{[]int{30, 30}, []int{30, 30}, 20, []int{30, 30}},           // nothing may give: wider than max
		{[]int{30, 30}, []int{10, 10}, 20, []int{10, 10}},           // each down to its longest word, no further
	} {
		if got := fitWidths(c.nat, c.least, c.max); !reflect.DeepEqual(got, c.want) {
			t.Errorf("fitWidths(%v, %v, %d) = %v, want %v", c.nat, c.least, c.max, got, c.want)
		}
	}
}

// wideResult is a table with an ID column and a free-text column.
type wideResult struct{}

var wideText = strings.Repeat("word ", 30)

func (wideResult) Table() Table {
	return Table{Columns: []string{"id", "text"}, Wrap: []string{"text"},
		Rows: []Record{{{"id", "340ca71c-0001-4000-a000-000000000000"}, {"text", wideText}}}, Footer: []string{wideText}}
}

// TestTableWidth: as openstack's client, a table is fitted only when
// asked: --max-width N, or --fit-width (the terminal's width, else
// COLUMNS); COLUMNS alone, a pipe, and -1 never fit.
func TestTableWidth(t *testing.T) {
	for _, c := range []struct {
		columns string
		max     int
		fit     bool
		widest  int // 0: not fitted
	}{
		{"", 0, false, 0}, {"60", 0, false, 0}, {"60", 0, true, 60}, {"60", 50, false, 50}, {"60", 50, true, 50},
		{"60", -1, true, 0}, {"junk", 0, true, 0}, {"", 0, true, 0},
		// the ID (36) and the longest word (4) need 47: never less
		{"", 40, false, 47}, {"30", 0, true, 47},
	} {
		t.Setenv("COLUMNS", c.columns)
		var b bytes.Buffer
		if err := Write(&b, Options{Format: "table", MaxWidth: c.max, FitWidth: c.fit}, wideResult{}); err != nil {
			t.Fatal(err)
		}
		widest := 0
		for _, l := range strings.Split(b.String(), "\n") {
			widest = max(widest, utf8.RuneCountInString(l))
		}
		if c.widest == 0 && widest < 150 || c.widest != 0 && widest != c.widest {
			t.Errorf("COLUMNS=%q MaxWidth=%d FitWidth=%v: widest line %d, want %d (0: not fitted)", c.columns, c.max, c.fit, widest, c.widest)
		}
	}
}

// oddTable is a table with a subtable and footers: empty cells and an
// empty column, wide runes, long IDs, multi-line cells, one-rune words.
type oddTable struct{}

var oddRows = []Record{
	{{"id", "340ca71c-0001-4000-a000-000000000000"}, {"", ""}, {"name", "日本語のサーバー名 🙂🙂🙂"}, {"note", "a b c d e f g h i j k l m n o p"}},
	{{"id", ""}, {"", ""}, {"name", ""}, {"note", ""}},
	{{"id", strings.Repeat("f", 64)}, {"", ""}, {"name", "two\nlines"}, {"note", "x"}},
}

func (oddTable) Table() Table {
	return Table{Columns: []string{"id", "", "name", "note"}, Rows: oddRows,
		Subtables: []Subtable{{Title: "orphans: " + strings.Repeat("0123456789abcdef", 4), Columns: []string{"x"}, Rows: []Record{{{"x", "ünïcödé wörds"}}}}},
		Footer:    []string{strings.Repeat("unbroken", 10), "a footer of several words, each short"}}
}

// TestNarrowWidthsNeverPanic: every width (0 to 10 as --max-width and as
// COLUMNS, negative, huge) draws every odd table without a panic, and
// every cell's text, and every footer's, is in what is drawn (wrapped:
// its runes, in order, in its column).
func TestNarrowWidthsNeverPanic(t *testing.T) {
	widths := []int{-5, -1, 1 << 20, int(^uint(0) >> 1)}
	for w := 0; w <= 10; w++ {
		widths = append(widths, w)
	}
	rec := Record{{"id", strings.Repeat("e", 70)}, {"wide", "漢字漢字漢字漢字"}, {"empty", ""}, {"words", "many short words in one cell"}}
	for _, w := range widths {
		for _, env := range []bool{false, true} {
			o := Options{Format: "table", MaxWidth: w}
			if env {
				if w < 0 || w > 10 {
					continue
				}
				o.MaxWidth = 0
				t.Setenv("COLUMNS", strconv.Itoa(w))
			} else {
				t.Setenv("COLUMNS", "")
			}
			for name, v := range map[string]any{"odd": oddTable{}, "record": rec,
				"list":  List{Columns: []string{"a"}, Rows: []Record{{{"a", "x"}}}, Footer: []string{"y"}},
				"empty": List{Columns: []string{"only"}}} {
				var b bytes.Buffer
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s at width %d (COLUMNS: %v): panic: %v", name, w, env, p)
						}
					}()
					if err := Write(&b, o, v); err != nil {
						t.Fatalf("%s at width %d: %v", name, w, err)
					}
				}()
				checkDrawn(t, fmt.Sprintf("%s at width %d (COLUMNS: %v)", name, w, env), b.String(), v)
			}
		}
	}
}

// checkDrawn: each cell's text, spaces and newlines left out, is in its
// column's text (every line's slice between its '|'s, in order, the same
// left out), and each footer and title is in the output.
func checkDrawn(t *testing.T, what, out string, v any) {
	t.Helper()
	var tables [][]Record // the cells each table drew, in order
	var heads [][]string
	var extra []string
	switch x := v.(type) {
	case Record:
		var rows []Record
		for _, f := range x {
			rows = append(rows, Record{{"Field", f.Name}, {"Value", f.Value}})
		}
		tables, heads = append(tables, rows), append(heads, []string{"Field", "Value"})
	case Tabular:
		tb := x.Table()
		tables, heads = append(tables, tb.Rows), append(heads, tb.Columns)
		for _, st := range tb.Subtables {
			tables, heads = append(tables, st.Rows), append(heads, st.Columns)
			extra = append(extra, st.Title)
		}
		extra = append(extra, tb.Footer...)
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	// the drawn tables: a separator line's '+'s are its columns' borders
	type drawn struct{ head, body []string }
	var got []drawn
	var borders []int
	seps := 0
	for _, l := range strings.Split(out, "\n") {
		r := []rune(l)
		switch {
		case strings.HasPrefix(l, "+-"):
			if seps%3 == 0 {
				borders = borders[:0]
				for i, c := range r {
					if c == '+' {
						borders = append(borders, i)
					}
				}
				got = append(got, drawn{make([]string, len(borders)-1), make([]string, len(borders)-1)})
			}
			seps++
		case strings.HasPrefix(l, "|") && len(got) > 0:
			d := got[len(got)-1]
			for i := 0; i+1 < len(borders); i++ {
				if borders[i+1] > len(r) {
					t.Fatalf("%s: a line shorter than its table's border:\n%s", what, out)
				}
				cell := squeeze(string(r[borders[i]+1 : borders[i+1]]))
				if seps%3 == 1 {
					d.head[i] += cell
				} else {
					d.body[i] += cell
				}
			}
		}
	}
	if len(got) != len(tables) {
		t.Fatalf("%s: %d tables drawn, want %d:\n%s", what, len(got), len(tables), out)
	}
	for k, rows := range tables {
		// a column empty in every row is left out (when there are rows)
		var kept []int
		for i := range heads[k] {
			filled := len(rows) == 0
			for _, r := range rows {
				filled = filled || cellString(r[i].Value) != ""
			}
			if filled {
				kept = append(kept, i)
			}
		}
		if len(got[k].head) != len(kept) {
			t.Fatalf("%s: %d columns drawn, want %d:\n%s", what, len(got[k].head), len(kept), out)
		}
		for d, i := range kept {
			h := heads[k][i]
			if !strings.Contains(got[k].head[d], squeeze(h)) {
				t.Errorf("%s: column %q not drawn:\n%s", what, h, out)
			}
			for _, r := range rows {
				if c := squeeze(cellString(r[i].Value)); !strings.Contains(got[k].body[d], c) {
					t.Errorf("%s: cell %q of column %q not drawn:\n%s", what, c, h, out)
				}
			}
		}
	}
	for _, e := range extra {
		if !strings.Contains(squeeze(out), squeeze(e)) {
			t.Errorf("%s: %q not drawn:\n%s", what, e, out)
		}
	}
}
