package output

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A drawn table's layout: which columns it shows, which of them are free
// text (wrapped at spaces when the table is fitted), and whether a column
// empty in every row is left out.
type layout struct {
	head      []string
	wrap      []bool // per column of head; nil: none wraps
	dropEmpty bool   // leave out a column empty in every row (no -c)
}

// writeTable draws the openstack client's box table; a cell with newlines
// spans several lines. max > 0 fits the lines to max columns (fitWidths).
func writeTable(w io.Writer, l layout, rows [][]string, max int) {
	walk := func(yield func([]string) bool) {
		for _, r := range rows {
			if !yield(r) {
				return
			}
		}
	}
	writeTableOf(w, l, walk, walk, max, nil)
}

// writeTableOf draws a table: measure walks its rows for their widths (in
// any order), draw walks them again, in the order they are drawn. A
// 500,000-guest audit's rows are never all held at once, and a row's
// cells may be reused by a walk after yield returns. Stopped (the run's
// context done) while it measures, it draws nothing; while it draws, it
// ends after the last whole row, without the bottom border.
func writeTableOf(w io.Writer, l layout, measure, draw func(yield func([]string) bool), max int, stop stopper) error {
	n := len(l.head)
	nat, least := make([]int, n), make([]int, n)
	filled := make([]bool, n)
	for i, h := range l.head {
		nat[i] = widestLine(h)
		least[i] = longestWord(h)
	}
	rows := 0
	for row := range measure {
		if err := stop.stopped(); err != nil {
			return &InterruptedError{Cause: err}
		}
		rows++
		for i, c := range row {
			if c == "" {
				continue
			}
			filled[i] = true
			nat[i] = maxInt(nat[i], widestLine(c))
			if l.wraps(i) {
				least[i] = maxInt(least[i], longestWord(c))
			}
		}
	}
	// the columns drawn: every one, or those with a cell to show
	keep := make([]int, 0, n)
	for i := range l.head {
		if !l.dropEmpty || rows == 0 || filled[i] {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		for i := range l.head {
			keep = append(keep, i)
		}
	}
	kn, kl := make([]int, len(keep)), make([]int, len(keep))
	for k, i := range keep {
		kn[k] = nat[i]
		kl[k] = nat[i]
		if l.wraps(i) {
			kl[k] = least[i]
		}
	}
	width := fitWidths(kn, kl, max)
	var sep strings.Builder
	sep.WriteByte('+')
	for _, n := range width {
		sep.WriteString(strings.Repeat("-", n+2))
		sep.WriteByte('+')
	}
	line := sep.String()
	fmt.Fprintln(w, line)
	writeRow(w, l, keep, width, l.head)
	fmt.Fprintln(w, line)
	drawn := 0
	for row := range draw {
		if err := stop.stopped(); err != nil {
			return cut(err, drawn)
		}
		writeRow(w, l, keep, width, row)
		drawn++
	}
	fmt.Fprintln(w, line)
	return nil
}

func (l layout) wraps(i int) bool { return i < len(l.wrap) && l.wrap[i] }

// writeRow draws one row: each kept cell's lines, a free-text cell's
// wrapped at spaces to its column's width.
func writeRow(w io.Writer, l layout, keep []int, width []int, cells []string) {
	split := make([][]string, len(keep))
	height := 1
	for k, i := range keep {
		if l.wraps(i) {
			split[k] = wrapCell(cells[i], width[k])
		} else {
			split[k] = strings.Split(cells[i], "\n")
		}
		height = maxInt(height, len(split[k]))
	}
	var b strings.Builder
	for ln := 0; ln < height; ln++ {
		b.Reset()
		b.WriteByte('|')
		for k := range keep {
			s := ""
			if ln < len(split[k]) {
				s = split[k][ln]
			}
			b.WriteByte(' ')
			b.WriteString(s)
			b.WriteString(strings.Repeat(" ", maxInt(width[k]-utf8.RuneCountInString(s), 0)))
			b.WriteString(" |")
		}
		fmt.Fprintln(w, b.String())
	}
}

// Subtable is a second table under a result's first (secrets audit's
// orphans): its Title line, then its rows, fitted to the same width,
// a column empty in every row left out. It shows in table output only,
// as a footer does, before the footer.
type Subtable struct {
	Title   string
	Columns []string
	Rows    []Record
	// Wrap are its free-text columns, as Table.Wrap.
	Wrap []string
}

func writeSubtable(w io.Writer, st Subtable, max int) {
	for _, l := range wrapLine(footerLine(st.Title), max, "  ") {
		fmt.Fprintln(w, l)
	}
	rows := make([][]string, len(st.Rows))
	for i, r := range st.Rows {
		rows[i] = make([]string, len(r))
		for j, f := range r {
			rows[i][j] = cellString(f.Value)
		}
	}
	writeTable(w, layout{head: st.Columns, wrap: wrapFlags(st.Columns, st.Wrap), dropEmpty: true}, rows, max)
}

// wrapFlags marks the columns of head that are free text.
func wrapFlags(head, free []string) []bool {
	out := make([]bool, len(head))
	for i, h := range head {
		for _, f := range free {
			if strings.EqualFold(h, f) {
				out[i] = true
			}
		}
	}
	return out
}
