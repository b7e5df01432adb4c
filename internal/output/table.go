package output

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// writeTable draws the openstack client's box table; a cell with newlines
// spans several lines. max > 0 fits the lines to max columns (fitWidths).
func writeTable(w io.Writer, head []string, rows [][]string, max int) {
	writeTableOf(w, head, func(yield func([]string) bool) {
		for _, r := range rows {
			if !yield(r) {
				return
			}
		}
	}, max, nil)
}

// writeTableOf draws the rows a walk gives, walking them twice (widths,
// then lines): a 500,000-guest audit's rows are never all held at once.
// A row's cells may be reused by the walk after yield returns. Stopped
// (the run's context done) while it measures, it draws nothing; while it
// draws, it ends after the last whole row, without the bottom border.
func writeTableOf(w io.Writer, head []string, rows func(yield func([]string) bool), max int, stop stopper) error {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = utf8.RuneCountInString(h)
	}
	var stopped error
	for row := range rows {
		if stopped = stop.stopped(); stopped != nil {
			return &InterruptedError{Cause: stopped}
		}
		for i, c := range row {
			for _, line := range strings.Split(c, "\n") {
				if n := utf8.RuneCountInString(line); n > width[i] {
					width[i] = n
				}
			}
		}
	}
	width = fitWidths(width, max)
	var sep strings.Builder
	sep.WriteByte('+')
	for _, n := range width {
		sep.WriteString(strings.Repeat("-", n+2))
		sep.WriteByte('+')
	}
	line := sep.String()
	fmt.Fprintln(w, line)
	writeRow(w, width, head)
	fmt.Fprintln(w, line)
	n := 0
	for row := range rows {
		if stopped = stop.stopped(); stopped != nil {
			return cut(stopped, n)
		}
		writeRow(w, width, row)
		n++
	}
	fmt.Fprintln(w, line)
	return nil
}

// writeRow draws one row, each cell wrapped to its column's width.
func writeRow(w io.Writer, width []int, cells []string) {
	split := make([][]string, len(cells))
	height := 1
	for i, c := range cells {
		split[i] = wrapCell(c, width[i])
		if len(split[i]) > height {
			height = len(split[i])
		}
	}
	for l := 0; l < height; l++ {
		var b strings.Builder
		b.WriteByte('|')
		for i := range cells {
			s := ""
			if l < len(split[i]) {
				s = split[i][l]
			}
			b.WriteByte(' ')
			b.WriteString(s)
			b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(s)))
			b.WriteString(" |")
		}
		fmt.Fprintln(w, b.String())
	}
}

// Subtable is a second table under a result's first (secrets audit's
// orphans): its Title line, then its rows, fitted to the same width.
// It shows in table output only, as a footer does, before the footer.
type Subtable struct {
	Title   string
	Columns []string
	Rows    []Record
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
	writeTable(w, st.Columns, rows, max)
}
