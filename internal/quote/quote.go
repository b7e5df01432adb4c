package quote

import "strings"

// IsBidi says whether r is a Unicode bidirectional control: the embedding,
// override and isolate controls (U+202A–U+202E, U+2066–U+2069) and the
// marks (U+200E, U+200F, U+061C). In a name they reorder what a reader
// sees around them ("Trojan source"), so they are neutralised wherever
// C0/C1 control characters are.
func IsBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || IsBidi(r)
}

// Shell quotes s as one POSIX sh word: bare when it has only characters
// that are never special, else in single quotes with ' written as '\”.
// Controls and bidi controls stay inside the quotes, as sh reads them:
// callers that show the command to a person check HasControl first.
func Shell(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '@' || r == '=' || r == ',' || r == '+' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 && s[0] != '-' {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HasControl says whether s has a control character: such a value would
// spread one command over several lines, which no reviewer reads right.
func HasControl(s string) bool { return OneLine(s) != s }

// ShellComment is one comment line: line breaks and every other control
// character become '?', so no text can end the comment and start a
// command.
func ShellComment(s string) string { return "# " + OneLine(s) }

// OneLine replaces control characters (line breaks included, the Unicode
// line and paragraph separators, and bidi controls) with '?'.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if isControl(r) || r == 0x2028 || r == 0x2029 {
			return '?'
		}
		return r
	}, s)
}

// CSVCell neutralises a spreadsheet formula (OWASP's rule): a cell that
// starts with = + - @, a tab or a carriage return gets a leading '.
// encoding/csv does the CSV quoting itself. Bidi controls become '?'
// (a spreadsheet shows them reordered); line breaks stay, CSV quotes them.
func CSVCell(s string) string {
	s = strings.Map(func(r rune) rune {
		if IsBidi(r) {
			return '?'
		}
		return r
	}, s)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "#", `\#`, "!", `\!`,
)

// Markdown escapes s for one line of a markdown document or table cell:
// markup characters are escaped, HTML is neutralised, line breaks become
// spaces.
func Markdown(s string) string {
	return mdEscaper.Replace(strings.Join(strings.Fields(OneLineSpaces(s)), " "))
}

// OneLineSpaces is OneLine with line breaks and tabs as spaces.
func OneLineSpaces(s string) string {
	return OneLine(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s))
}
