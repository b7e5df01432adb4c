package output

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// Footer lines carry cloud data (server names, warnings, a server's error
// text): a server named "x\nvtpmctl: all checks passed" printed raw put a
// line on stdout that vtpmctl never wrote. Sanitize keeps line breaks (a
// table cell spans lines) and runs only on a terminal, so footers are
// made one line where they are written, on every writer.

// ShownName is a name from the cloud as a footer or message shows it:
// itself when ordinary, Go-quoted when it holds a control character, so
// it reads as one value that is visibly not vtpmctl's text.
func ShownName(s string) string {
	if quote.HasControl(s) {
		return strconv.Quote(s)
	}
	return s
}

// footerLine is l with each control character (line breaks, escapes,
// bidi controls; quote.HasControl's set) and each invalid byte written
// as its Go escape: one line, whatever its data.
func footerLine(l string) string {
	if !quote.HasControl(l) {
		return l
	}
	var b strings.Builder
	for i, r := range l {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(l[i:], string(utf8.RuneError)):
			fmt.Fprintf(&b, `\x%02x`, l[i])
		case quote.HasControl(string(r)):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
