package output

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// writeTable draws the openstack client's box table; a cell with newlines
// spans several lines.
func writeTable(w io.Writer, head []string, rows [][]string) {
	writeTableOf(w, head, len(rows), func(i int) []string { return rows[i] })
}

// writeTableOf draws n rows, asking row(i) for each one twice (widths,
// then lines): a 50,000-guest audit's cells are never all held at once.
func writeTableOf(w io.Writer, head []string, n int, row func(int) []string) {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = utf8.RuneCountInString(h)
	}
	for k := 0; k < n; k++ {
		for i, c := range row(k) {
			for _, line := range strings.Split(c, "\n") {
				if n := utf8.RuneCountInString(line); n > width[i] {
					width[i] = n
				}
			}
		}
	}
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
	for k := 0; k < n; k++ {
		writeRow(w, width, row(k))
	}
	fmt.Fprintln(w, line)
}

func writeRow(w io.Writer, width []int, cells []string) {
	split := make([][]string, len(cells))
	height := 1
	for i, c := range cells {
		split[i] = strings.Split(c, "\n")
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

// TableLines draws a table into lines, for a result that shows a second
// table under its first.
func TableLines(columns []string, recs []Record) []string {
	var b strings.Builder
	rows := make([][]string, len(recs))
	for i, r := range recs {
		rows[i] = make([]string, len(r))
		for j, f := range r {
			rows[i][j] = cellString(f.Value)
		}
	}
	writeTable(&b, columns, rows)
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}
