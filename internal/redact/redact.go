package redact

import (
	"bytes"
	"encoding/json"
	"html"
	"html/template"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// Mark replaces every registered value.
const Mark = "<redacted>"

// EscapedMark is Mark for text read through HTML or markdown: there the
// plain Mark is a tag, and the reader would see nothing.
const EscapedMark = "&lt;redacted&gt;"

// MinLen: shorter values are not registered, they would blank out
// ordinary words.
const MinLen = 4

// A value's kind says where it counts as found. A token (issued by a
// server, long and random) is removed wherever it appears: it is never
// part of a word. A password is chosen by a person and may well be a word
// ("secret", "admin", "false", "1234"): removed as a substring it would
// rewrite JSON keys, schema names and literals. It is removed only where
// a credential can stand (see rule).
type kind uint8

const (
	token kind = iota
	password
)

// entry is one registered spelling of a value.
type entry struct {
	s  string
	pw bool
}

// index is an immutable snapshot of the registry, rebuilt on Register, so
// scrubbing takes no lock per byte. A two-byte prefilter skips almost
// every position; candidates are found by their first 16 bytes (tokens
// issued in the same second share their first ~12) or, when shorter, 4.
type index struct {
	pair   [1 << 16]bool
	by16   map[string][]entry
	by4    map[string][]entry
	maxLen int
	pw     bool // a password is registered: matches look around them
}

var (
	mu     sync.Mutex
	added  = map[string]kind{} // what was registered
	values = map[string]kind{} // and every spelling of it
	cur    = &index{}
	curMu  sync.RWMutex
)

// Register adds a token: a value that Scrub and every Writer remove
// wherever it appears from now on, also as the formats write it: a Writer
// scrubs rendered text, where JSON writes "<" as \u003c, markdown "_" (in
// every other base64url token) as \_, HTML '"' as &#34; (and html/template
// '+' as &#43;) and CSV '"' as "".
func Register(v string) { add(v, token) }

// RegisterPassword adds a value a person chose, in the same spellings as
// Register, removed only where a credential can stand: a whole quoted
// string (a JSON or YAML string value, the auth body a server echoes in
// an error), URL user-info, and in error text (Scrub) a whole word.
func RegisterPassword(v string) { add(v, password) }

func add(v string, k kind) {
	if len(v) < MinLen {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if old, ok := added[v]; ok && (old == token || k == password) {
		return
	}
	added[v] = k
	for _, e := range encodings(v) {
		// a value registered both ways is a token: the wider scrub wins
		if old, ok := values[e]; len(e) >= MinLen && (!ok || old > k) {
			values[e] = k
		}
	}
	ix := build(values)
	curMu.Lock()
	cur = ix
	curMu.Unlock()
}

func build(values map[string]kind) *index {
	ix := &index{by16: map[string][]entry{}, by4: map[string][]entry{}}
	for s, k := range values {
		e := entry{s, k == password}
		ix.pair[uint16(s[0])<<8|uint16(s[1])] = true
		if len(s) >= 16 {
			ix.by16[s[:16]] = append(ix.by16[s[:16]], e)
		} else {
			ix.by4[s[:4]] = append(ix.by4[s[:4]], e)
		}
		ix.maxLen = max(ix.maxLen, len(s))
		ix.pw = ix.pw || e.pw
	}
	// longest first: a value that is a prefix of another never leaves
	// the other's tail behind
	for _, m := range []map[string][]entry{ix.by16, ix.by4} {
		for _, l := range m {
			sort.Slice(l, func(i, j int) bool { return len(l[i].s) > len(l[j].s) })
		}
	}
	return ix
}

func encodings(v string) []string {
	tmpl := template.HTMLEscapeString(v)
	out := []string{v, html.EscapeString(v), tmpl, strings.ReplaceAll(v, `"`, `""`),
		strings.ReplaceAll(tmpl, "+", "&#43;")} // as html/template writes text (the report)
	if !strings.ContainsAny(v, " \t\r\n") { // markdown collapses whitespace
		out = append(out, quote.Markdown(v))
	}
	for _, escHTML := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escHTML)
		if enc.Encode(v) == nil {
			q := strings.TrimSpace(b.String())
			out = append(out, q[1:len(q)-1])
		}
	}
	return out
}

func snapshot() *index {
	curMu.RLock()
	defer curMu.RUnlock()
	return cur
}

// holdBack is how many bytes at the end of unfinished text may still
// change: the start of a value, and what a password's match looks at
// after it.
func (ix *index) holdBack() int {
	n := max(ix.maxLen-1, 0)
	if ix.pw {
		n += lookahead
	}
	return n
}

// match returns the length of the longest registered value at b[i:] that
// counts as found under r, or 0. b[:i] is context: r looks behind.
func (ix *index) match(b []byte, i int, r rule) int {
	if i+1 >= len(b) || !ix.pair[uint16(b[i])<<8|uint16(b[i+1])] {
		return 0
	}
	if i+16 <= len(b) {
		if n := find(ix.by16[string(b[i:i+16])], b, i, r); n > 0 {
			return n
		}
	}
	if i+4 <= len(b) {
		return find(ix.by4[string(b[i:i+4])], b, i, r)
	}
	return 0
}

func find(l []entry, b []byte, i int, r rule) int {
	for _, e := range l {
		if has(b, i, e.s) && (!e.pw || r.found(b, i, i+len(e.s))) {
			return len(e.s)
		}
	}
	return 0
}

func has(b []byte, i int, s string) bool {
	return i+len(s) <= len(b) && string(b[i:i+len(s)]) == s
}

// replace appends b[from:stop] to dst with registered values replaced by
// mark; a value starting before stop may end after it (it must lie
// within b). b[:from] is context only. It returns where in b it stopped
// (≥ stop when the last value ran past).
func (ix *index) replace(dst, b []byte, from, stop int, r rule, mark string) ([]byte, int) {
	if ix.maxLen == 0 {
		return append(dst, b[from:stop]...), stop
	}
	last, i := from, from
	for i < stop {
		// the hot loop: one table load per byte that starts no value
		if i+1 >= len(b) || !ix.pair[uint16(b[i])<<8|uint16(b[i+1])] {
			i++
			continue
		}
		if n := ix.match(b, i, r); n > 0 {
			dst = append(append(dst, b[last:i]...), mark...)
			i += n
			last = i
			continue
		}
		i++
	}
	return append(dst, b[last:i]...), i
}

// userinfo never holds a '"' (RFC 3986), so it never runs from a URL in
// one JSON string to an '@' in the next.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@"]+@`)

// scrubUserinfo leaves user-info that is a mark already: an inner Writer
// (the report's, markdown's) wrote it for its format.
func scrubUserinfo(b []byte, mark string) []byte {
	if !bytes.Contains(b, []byte("://")) || !bytes.ContainsRune(b, '@') {
		return b
	}
	return userinfo.ReplaceAllFunc(b, func(m []byte) []byte {
		scheme := m[:bytes.Index(m, []byte("://"))+3]
		if info := string(m[len(scheme) : len(m)-1]); info == Mark || info == EscapedMark {
			return m
		}
		return append(append(append([]byte{}, scheme...), mark...), '@')
	})
}

// Scrub removes registered values and URL user-info from error text (an
// error line, a debug line, a string a server sent): tokens anywhere,
// passwords as whole words. Rendered documents pass through a Writer.
func Scrub(s string) string {
	ix := snapshot()
	b := []byte(s)
	out, _ := ix.replace(make([]byte, 0, len(b)), b, 0, len(b), inText, Mark)
	out = scrubUserinfo(out, Mark)
	if bytes.Equal(out, b) {
		return s
	}
	return string(out)
}
