package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// Help is fitted to the reader's width: urfave/cli renders it unwrapped
// (a flag's usage was a 539-column line), then fitHelp wraps every line
// that does not fit, and strips the markup (backticks) a terminal would
// show as is. docs/cli and the man pages are made from the commands, not
// from this text.
func init() {
	cli.HelpPrinterCustom = func(w io.Writer, templ string, data any, funcs map[string]any) {
		var b bytes.Buffer
		cli.DefaultPrintHelpCustom(&b, templ, data, funcs)
		_, _ = io.WriteString(w, fitHelp(b.String(), helpWidth(w)))
	}
}

// defaultHelpWidth is the width of help in a pipe without $COLUMNS.
const defaultHelpWidth = 80

// helpWidth is the terminal's width when w is one, else $COLUMNS, else 80.
func helpWidth(w io.Writer) int {
	if f, ok := output.Raw(w).(*os.File); ok {
		if n := terminalColumns(f); n > 0 {
			return n
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return defaultHelpWidth
}

// minHelpWidth: narrower, help is wrapped at this width all the same (a
// word a line helps nobody).
const minHelpWidth = 40

// fitHelp wraps text's lines to width and removes backticks. A line that
// fits is kept as it is. One that does not is broken at spaces:
//   - an option or a table row ("--name VALUE   what it does", "0  success")
//     hangs under its second column (4 in when that column is too far
//     right), a bullet ("- ") under its text, a line followed by deeper
//     prose under that prose;
//   - an example (the lines under EXAMPLES:) is a command line, broken
//     outside quotes and continued with " \" so it still pastes into a shell;
//   - what overflows is carried into the next line when that line goes on
//     at the same indent (a paragraph, a row's second line), so text written
//     for 80 columns reflows on a narrower terminal.
func fitHelp(text string, width int) string {
	text = strings.ReplaceAll(text, "`", "")
	if width < minHelpWidth {
		width = minHelpWidth
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	var out []string
	inExamples := false
	carry, carryHang := "", -1 // words that overflowed the previous line
	flush := func() {
		if carry != "" {
			out = append(out, wrapWords(carry, width, carryHang)...)
		}
		carry, carryHang = "", -1
	}
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		lead := len(l) - len(trimmed)
		switch {
		case trimmed == "":
			flush()
			inExamples = false
			out = append(out, l)
			continue
		case strings.HasSuffix(trimmed, ":") && strings.ToUpper(trimmed) == trimmed:
			flush()
			inExamples = trimmed == "EXAMPLES:"
			out = append(out, l)
			continue
		case inExamples:
			flush()
			out = append(out, wrapCommand(l, lead, width)...)
			continue
		}
		col := secondColumn(l, lead)
		bullet := strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ")
		prose := col < 0 && !bullet
		if carry != "" {
			if prose && lead == carryHang {
				l = strings.Repeat(" ", lead) + carry + " " + trimmed
				carry, carryHang = "", -1
			} else {
				flush()
			}
		}
		if runeWidth(l) <= width {
			out = append(out, l)
			continue
		}
		hang := lead
		switch {
		case col >= 0:
			hang = col
		case bullet:
			hang = lead + 2
		case i+1 < len(lines):
			// a row whose second line is deeper ("SECRET-CONSUMER whether
			// …" over "                counted, …")
			next := lines[i+1]
			if nl := len(next) - len(strings.TrimLeft(next, " ")); nl > lead && nl < len(next) && secondColumn(next, nl) < 0 {
				hang = nl
			}
		}
		if hang > width*2/3 {
			hang = lead + 4
		}
		head, rest := fillLine(l, width)
		out = append(out, head)
		carry, carryHang = rest, hang
	}
	flush()
	return strings.Join(out, "\n")
}

// secondColumn is where the text after a gap of two or more spaces starts
// in l ("--image NAME   image NAME_OR_ID"), -1 for a line without one.
func secondColumn(l string, lead int) int {
	i := strings.Index(l[lead:], "  ")
	if i < 0 {
		return -1
	}
	j := lead + i
	for j < len(l) && l[j] == ' ' {
		j++
	}
	if j == len(l) {
		return -1
	}
	return utf8.RuneCountInString(l[:j])
}

// fillLine splits l at the last space that keeps its head within width
// (the first word whole when it is wider); rest has no leading spaces.
func fillLine(l string, width int) (head, rest string) {
	lead := len(l) - len(strings.TrimLeft(l, " "))
	cut := -1
	n := 0
	for i, r := range l {
		if n >= width {
			break
		}
		if r == ' ' && i > lead {
			cut = i
		}
		n++
	}
	if n < width { // the whole line fits
		return l, ""
	}
	if cut < 0 {
		// one word wider than the line: up to its end
		end := strings.IndexByte(l[lead:], ' ')
		if end < 0 {
			return l, ""
		}
		cut = lead + end
	}
	return strings.TrimRight(l[:cut], " "), strings.TrimLeft(l[cut:], " ")
}

// wrapWords lays words out in lines of width, each hang columns in (4
// when that leaves too little room).
func wrapWords(words string, width, hang int) []string {
	if width-hang < 20 {
		hang = 4
	}
	indent := strings.Repeat(" ", hang)
	var out []string
	rest := words
	for rest != "" {
		var head string
		head, rest = fillLine(indent+rest, width)
		out = append(out, head)
	}
	return out
}

// wrapCommand breaks a shell command line to width at spaces outside
// quotes, each broken line ending in " \", the next 4 further in.
func wrapCommand(l string, lead, width int) []string {
	if runeWidth(l) <= width {
		return []string{l}
	}
	words := shellWords(strings.TrimLeft(l, " "))
	var out []string
	indent := strings.Repeat(" ", lead)
	line := indent
	for i, w := range words {
		switch {
		case i == 0:
			line += w
		case runeWidth(line)+1+runeWidth(w)+2 > width && strings.TrimSpace(line) != "":
			out = append(out, line+" \\")
			line = strings.Repeat(" ", lead+4) + w
		default:
			line += " " + w
		}
	}
	return append(out, line)
}

// shellWords splits a command line at spaces outside quotes, keeping the
// quotes; a redirection stays with its file ("> cleanup.sh").
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	var out []string
	for i := 0; i < len(words); i++ {
		switch w := words[i]; {
		case (w == ">" || w == ">>" || w == "<" || w == "2>") && i+1 < len(words):
			out = append(out, w+" "+words[i+1])
			i++
		default:
			out = append(out, w)
		}
	}
	return out
}

func runeWidth(s string) int { return utf8.RuneCountInString(s) }
