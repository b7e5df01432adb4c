package output

import (
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tables are for people, and an ID is for copying: a server UUID cut in
// two is no ID (issue 41: COLUMNS=80 turned a 2,006-line audit into
// 4,494 lines, every UUID split). So, as openstack's client does, a table
// is fitted to a width only when asked (--fit-width, CLIFF_FIT_WIDTH=1,
// or --max-width N), and then only its free-text columns (Table.Wrap: a
// message, a reason, findings) give way, wrapped at spaces. IDs, names,
// host names and every other column keep their width, and no word is
// ever cut: where a row cannot fit, the table runs wider than asked, as
// kubectl's does, rather than break what a reader copies.

// tableWidth is the width tables are fitted to, 0 for none:
// Options.MaxWidth when set (negative: never fit), else, with
// Options.FitWidth, the terminal's width when w is one, else $COLUMNS;
// else none.
func tableWidth(w io.Writer, o Options) int {
	switch {
	case o.MaxWidth > 0:
		return o.MaxWidth
	case o.MaxWidth < 0, !o.FitWidth:
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

// fitWidths gives each column its width in a table fitted to max: the
// natural widths (nat, each column's widest line) when the lines ("| a |
// b |": 3 per column and 1) fit in max, else the widest columns capped
// until they do, no column below its least (least: a free-text column's
// longest word, every other column's natural width). When even the
// least widths do not fit, the lines are wider than max: that width is
// what the unbreakable cells force.
func fitWidths(nat, least []int, max int) []int {
	if max <= 0 {
		return nat
	}
	budget := max - 1 - 3*len(nat)
	total, floor := 0, 0
	for i, n := range nat {
		total += n
		floor += least[i]
	}
	if total <= budget {
		return nat
	}
	out := make([]int, len(nat))
	if floor >= budget {
		copy(out, least)
		return out
	}
	capped := func(c int) int {
		s := 0
		for i, n := range nat {
			s += maxInt(least[i], minInt(n, c))
		}
		return s
	}
	// the largest cap c with capped(c) <= budget: capped(0) is floor
	lo, hi := 0, 0
	for _, n := range nat {
		hi = maxInt(hi, n)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if capped(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for i, n := range nat {
		out[i] = maxInt(least[i], minInt(n, lo))
	}
	// hand what the cap left over to the capped columns, left first: the
	// lines are then exactly max wide
	left := budget - capped(lo)
	for i, n := range nat {
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

// longestWord is the widest run of s without a space or newline: what a
// free-text cell can be narrowed to without cutting a word.
func longestWord(s string) int {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		for _, w := range strings.Split(line, " ") {
			n = maxInt(n, utf8.RuneCountInString(w))
		}
	}
	return n
}

// widestLine is the widest of s's lines.
func widestLine(s string) int {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		n = maxInt(n, utf8.RuneCountInString(line))
	}
	return n
}

// wrapCell breaks a free-text cell's lines at spaces so none is wider
// than n runes, where its words allow: a word is never cut.
func wrapCell(c string, n int) []string {
	var out []string
	for _, line := range strings.Split(c, "\n") {
		out = append(out, wrapLine(line, n, "")...)
	}
	return out
}

// wrapLine wraps one line to n runes at spaces, indenting the
// continuation lines by indent. A word is never cut: one longer than a
// line is a line of its own, wider than n (an ID, a URL, a command line
// a reader copies whole).
func wrapLine(line string, n int, indent string) []string {
	if n <= 0 || utf8.RuneCountInString(line) <= n {
		return []string{line}
	}
	var out []string
	var cur []rune
	start := 0 // where the current line's own text begins (after indent)
	for i, word := range strings.Split(line, " ") {
		w := []rune(word)
		if i > 0 {
			if len(cur) > start && len(cur)+1+len(w) > n {
				out = append(out, string(cur))
				cur = []rune(indent)
				start = len(cur)
			} else {
				cur = append(cur, ' ')
			}
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
