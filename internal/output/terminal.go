package output

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// Names come from other people: a server called "\x1b]0;pwned\a" would
// retitle the operator's terminal, "\x1b[2J" clear it. Everything printed
// as table or value text goes through Sanitize; json and yaml stay exact
// (their encoders escape control characters themselves).

// Sanitize replaces control characters (C0 but newline and tab, DEL, C1,
// and the bidi controls that reorder what is shown around them, see
// quote.IsBidi) and invalid UTF-8 with U+FFFD, one rune for one, so tables keep their
// widths.
func Sanitize(s string) string {
	if !needsSanitizing(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				b.WriteRune(utf8.RuneError)
				continue
			}
		}
		if isControl(r) {
			b.WriteRune(utf8.RuneError)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || quote.IsBidi(r)
}

func needsSanitizing(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			if c < 0x80 || !utf8.ValidString(s) {
				return true
			}
			for _, r := range s {
				if isControl(r) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// TerminalWriter sanitizes everything written through it. A multi-byte
// rune split across two writes is held back until it is whole.
func TerminalWriter(w io.Writer) io.Writer { return &termWriter{w: w} }

type termWriter struct {
	w    io.Writer
	held []byte
}

func (t *termWriter) Write(p []byte) (int, error) {
	buf := append(t.held, p...)
	t.held = nil
	// keep an incomplete trailing rune for the next write
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	t.held = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(t.w, Sanitize(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Raw returns the writer under a TerminalWriter (for progress lines that
// draw with escape sequences of their own), or w itself.
func Raw(w io.Writer) io.Writer {
	if t, ok := w.(*termWriter); ok {
		return t.w
	}
	return w
}
