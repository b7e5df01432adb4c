package quote

import "strings"

// Shell quotes s as one POSIX sh word: bare when it has only characters
// that are never special, else in single quotes with ' written as '\”.
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

// OneLine replaces control characters (line breaks included, and the
// Unicode line and paragraph separators) with '?'.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 {
			return '?'
		}
		return r
	}, s)
}

// CSVCell neutralises a spreadsheet formula (OWASP's rule): a cell that
// starts with = + - @, a tab or a carriage return gets a leading '.
// encoding/csv does the CSV quoting itself.
func CSVCell(s string) string {
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
