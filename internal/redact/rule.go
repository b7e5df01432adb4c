package redact

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// rule says where a password counts as found; tokens count everywhere.
type rule uint8

const (
	// inDocument: rendered output (JSON, YAML, CSV, a table, HTML,
	// markdown), whose literals, keys and names a password may equal or
	// contain. Only a whole quoted string that is no mapping key: that is
	// how a credential stands in the auth body a server echoes, and how
	// JSON and YAML write a string value equal to it.
	inDocument rule = iota
	// inText: error text, where no document can break: also a whole word.
	inText
)

// lookbehind and lookahead bound what a rule reads around a match, so a
// Writer knows what to keep and hold back: the longest quote spelling
// before it; after it, a run of backslashes, a quote and a ':'.
const (
	lookbehind = 8
	lookahead  = 48
)

func (r rule) found(b []byte, i, j int) bool {
	if r == inText && wholeWord(b, i, j) {
		return true
	}
	return wholeQuoted(b, i, j)
}

// wholeWord: the match neither continues nor is continued by a word
// (letters, digits, '_'): "secret" is found in "bad password secret." but
// not in "secret_id" or "secrets".
func wholeWord(b []byte, i, j int) bool {
	first, _ := utf8.DecodeRune(b[i:j])
	last, _ := utf8.DecodeLastRune(b[i:j])
	before, _ := utf8.DecodeLastRune(b[:i])
	after, _ := utf8.DecodeRune(b[j:])
	return !(isWord(first) && isWord(before)) && !(isWord(last) && isWord(after))
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// quotes are the spellings of each quote as the formats write it: plain
// (JSON, YAML, CSV, markdown, a server's message) and as HTML escapes it.
var quotes = [][]string{
	{`"`, "&#34;", "&quot;"},
	{`'`, "&#39;", "&#x27;", "&apos;"},
}

// wholeQuoted: the match is all of a quoted string, and no mapping key.
// It must also lie within that one string, so replacing it keeps any
// document valid: a quote that closes a string is followed by white
// space, ',', ':', ']' or '}' (JSON, YAML, CSV), never by the match; and
// the match cannot reach past the string's end (withinString).
func wholeQuoted(b []byte, i, j int) bool {
	m := b[i:j]
	if bytes.IndexByte([]byte(" \t\r\n,:]}"), m[0]) >= 0 {
		return false
	}
	after := b[j:min(len(b), j+lookahead)]
	for q, spellings := range quotes {
		if !endsWithAny(b[max(0, i-lookbehind):i], spellings) {
			continue
		}
		n := closing(after, spellings)
		return n > 0 && !isKey(after[n:]) && withinString(m, q == 0)
	}
	return false
}

// withinString: m has no line break, no unescaped '"' and does not end on
// an escape's backslash: it ends no JSON, YAML double-quoted or CSV
// string. A single quote (YAML never escapes it) ends a YAML single-quoted
// one: it may stand only between double quotes, and not before the ':'
// that ends a YAML key.
func withinString(m []byte, double bool) bool {
	run := 0 // backslashes just before
	for k, c := range m {
		if c == '\\' {
			run++
			continue
		}
		escaped := run%2 == 1
		run = 0
		switch {
		case c == '\n' || c == '\r', c == '"' && !escaped:
			return false
		case c == '\'' && (!double || bytes.HasPrefix(m[k+1:], []byte(":"))):
			return false
		}
	}
	return run%2 == 0
}

func endsWithAny(b []byte, spellings []string) bool {
	for _, s := range spellings {
		if bytes.HasSuffix(b, []byte(s)) {
			return true
		}
	}
	return false
}

// closing returns the length of the quote rest begins with, after any
// backslashes (JSON echoed inside a JSON string writes \"), or 0.
func closing(rest []byte, spellings []string) int {
	n := 0
	for n < len(rest) && rest[n] == '\\' {
		n++
	}
	for _, s := range spellings {
		if bytes.HasPrefix(rest[n:], []byte(s)) {
			return n + len(s)
		}
	}
	return 0
}

// isKey: what follows a closing quote makes the string a mapping key
// (JSON "k": v, YAML "k": v).
func isKey(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " \t")
	return len(rest) > 0 && rest[0] == ':'
}
