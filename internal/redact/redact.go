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

// MinLen: shorter values are not registered, they would blank out
// ordinary words.
const MinLen = 4

// index is an immutable snapshot of the registry, rebuilt on Register, so
// scrubbing takes no lock per byte. A two-byte prefilter skips almost
// every position; candidates are found by their first 16 bytes (tokens
// issued in the same second share their first ~12) or, when shorter, 4.
type index struct {
	pair   [1 << 16]bool
	by16   map[string][]string
	by4    map[string][]string
	maxLen int
}

var (
	mu     sync.Mutex
	values = map[string]bool{}
	cur    = &index{}
	curMu  sync.RWMutex
)

// Register adds a value that Scrub and every Writer remove wherever it
// appears from now on, also as the formats write it: a Writer scrubs
// rendered text, where JSON writes "<" as \u003c, markdown "_" (in every
// other base64url token) as \_, HTML '"' as &#34; and CSV '"' as "".
func Register(v string) {
	if len(v) < MinLen {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if values[v] {
		return
	}
	for _, e := range encodings(v) {
		if len(e) >= MinLen {
			values[e] = true
		}
	}
	ix := &index{by16: map[string][]string{}, by4: map[string][]string{}}
	for s := range values {
		ix.pair[uint16(s[0])<<8|uint16(s[1])] = true
		if len(s) >= 16 {
			ix.by16[s[:16]] = append(ix.by16[s[:16]], s)
		} else {
			ix.by4[s[:4]] = append(ix.by4[s[:4]], s)
		}
		if len(s) > ix.maxLen {
			ix.maxLen = len(s)
		}
	}
	// longest first: a value that is a prefix of another never leaves
	// the other's tail behind
	for _, m := range []map[string][]string{ix.by16, ix.by4} {
		for _, l := range m {
			sort.Slice(l, func(i, j int) bool { return len(l[i]) > len(l[j]) })
		}
	}
	curMu.Lock()
	cur = ix
	curMu.Unlock()
}

func encodings(v string) []string {
	out := []string{v, html.EscapeString(v), template.HTMLEscapeString(v), strings.ReplaceAll(v, `"`, `""`)}
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

// match returns the length of the longest registered value at b[i:], or 0.
func (ix *index) match(b []byte, i int) int {
	if i+1 >= len(b) || !ix.pair[uint16(b[i])<<8|uint16(b[i+1])] {
		return 0
	}
	if i+16 <= len(b) {
		for _, s := range ix.by16[string(b[i:i+16])] {
			if has(b, i, s) {
				return len(s)
			}
		}
	}
	if i+4 <= len(b) {
		for _, s := range ix.by4[string(b[i:i+4])] {
			if has(b, i, s) {
				return len(s)
			}
		}
	}
	return 0
}

func has(b []byte, i int, s string) bool {
	return i+len(s) <= len(b) && string(b[i:i+len(s)]) == s
}

// replace appends b[:stop] to dst with registered values replaced; a
// value starting before stop may end after it (it must lie within b).
// It returns where in b it stopped (≥ stop when the last value ran past).
func (ix *index) replace(dst, b []byte, stop int) ([]byte, int) {
	if ix.maxLen == 0 {
		return append(dst, b[:stop]...), stop
	}
	last, i := 0, 0
	for i < stop {
		// the hot loop: one table load per byte that starts no value
		if i+1 >= len(b) || !ix.pair[uint16(b[i])<<8|uint16(b[i+1])] {
			i++
			continue
		}
		if n := ix.match(b, i); n > 0 {
			dst = append(append(dst, b[last:i]...), Mark...)
			i += n
			last = i
			continue
		}
		i++
	}
	return append(dst, b[last:i]...), i
}

var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@`)

func scrubUserinfo(b []byte) []byte {
	if !bytes.Contains(b, []byte("://")) || !bytes.ContainsRune(b, '@') {
		return b
	}
	return userinfo.ReplaceAll(b, []byte("${1}"+Mark+"@"))
}

// Scrub removes registered values and URL user-info from s.
func Scrub(s string) string {
	ix := snapshot()
	b := []byte(s)
	out, _ := ix.replace(make([]byte, 0, len(b)), b, len(b))
	out = scrubUserinfo(out)
	if bytes.Equal(out, b) {
		return s
	}
	return string(out)
}
