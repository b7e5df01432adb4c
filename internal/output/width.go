package output

import (
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A fleet's table is wider than any terminal: hosts audit drew 235
// columns, host check 644, and a terminal folds such lines into noise.
// Tables are fitted to a width: the widest columns give way first, their
// cells wrapped at word boundaries. A pipe (no terminal, no COLUMNS)
// keeps whole lines: a script's grep must find a row on one line.

// tableWidth is the width tables are fitted to, 0 for none: Options.MaxWidth
// when set (negative: never wrap), else the terminal's width when w is
// one, else $COLUMNS.
func tableWidth(w io.Writer, o Options) int {
	switch {
	case o.MaxWidth > 0:
		return o.MaxWidth
	case o.MaxWidth < 0:
		return 0
	}
	if f, ok := Raw(w).(*os.File); ok {
		if n := terminalWidth(f); n > 0 {
			return n
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// minColumn is the narrowest a column is squeezed to: narrower, a cell
// becomes a letter per line.
const minColumn = 8

// fitWidths narrows the widest columns until the table's lines
// ("| a | b |": 3 per column and 1) fit in max. A column narrower than
// what it is given keeps its width; when even minColumn for every wide
// column does not fit, the lines stay wider than max.
func fitWidths(width []int, max int) []int {
	if max <= 0 {
		return width
	}
	// never below a rune per column (minColumn keeps more, but a narrow
	// max makes budget negative)
	budget := maxInt(max-1-3*len(width), len(width))
	total := 0
	for _, n := range width {
		total += n
	}
	if total <= budget {
		return width
	}
	// the largest cap c with sum(min(width, c)) <= budget
	lo, hi := minColumn, 0
	for _, n := range width {
		hi = maxInt(hi, n)
	}
	capped := func(c int) int {
		s := 0
		for _, n := range width {
			s += minInt(n, c)
		}
		return s
	}
	if capped(lo) > budget {
		hi = lo
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if capped(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	out := make([]int, len(width))
	for i, n := range width {
		out[i] = minInt(n, lo)
	}
	// hand what the cap left over to the capped columns, left first
	left := budget - capped(lo)
	for i, n := range width {
		if left <= 0 {
			break
		}
		if n > out[i] {
			add := minInt(left, n-out[i])
			out[i] += add
			left -= add
		}
	}
	return out
}

// wrapCell breaks a cell's lines at spaces so none is wider than n
// runes; a word longer than n is cut.
func wrapCell(c string, n int) []string {
	var out []string
	for _, line := range strings.Split(c, "\n") {
		out = append(out, wrapLine(line, n, "")...)
	}
	return out
}

// wrapLine wraps one line to n runes at spaces, indenting the
// continuation lines by indent; a word longer than a line is cut. n is
// at least the indent and one rune (--max-width 1 or COLUMNS=1: a
// continuation line holds a rune of the text, or it would never end).
func wrapLine(line string, n int, indent string) []string {
	if n <= 0 || utf8.RuneCountInString(line) <= n {
		return []string{line}
	}
	n = max(n, utf8.RuneCountInString(indent)+1)
	var out []string
	cur := []rune{}
	start := 0 // where the current line's own text begins (after indent)
	next := func() {
		out = append(out, string(cur))
		cur = []rune(indent)
		start = len(cur)
	}
	for i, word := range strings.Split(line, " ") {
		w := []rune(word)
		if i > 0 && len(cur) > start {
			if len(cur)+1+len(w) <= n {
				cur = append(cur, ' ')
			} else {
				next()
			}
		}
		for len(cur)+len(w) > n {
			k := max(n-len(cur), 1)
			cur = append(cur, w[:k]...)
			w = w[k:]
			next()
		}
		cur = append(cur, w...)
	}
	if len(cur) > start || len(out) == 0 {
		out = append(out, string(cur))
	}
	return out
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
