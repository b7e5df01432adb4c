package output

import (
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/internal/packed"
)

// needsQuotes: a string that YAML would read back as another type, or
// that is empty, keeps its quotes.
//
// The rule is YAML's own (the string is parsed back), but a parse per
// string was two thirds of secrets audit's -f yaml time: most strings are
// UUIDs or begin with a letter, and plainString answers those without
// the parser. The rest are few and repeat (statuses, versions, Keystone
// IDs, notes), so their answers are remembered, a bounded number of them.
func needsQuotes(s string) bool {
	if plainString(s) {
		return false
	}
	if q, ok := quoteMemo.get(s); ok {
		return q
	}
	q := parsedNeedsQuotes(s)
	quoteMemo.put(s, q)
	return q
}

// parsedNeedsQuotes is the rule itself: YAML reads s back as s, a string.
func parsedNeedsQuotes(s string) bool {
	if s == "" {
		return true
	}
	var v any
	if yaml.Unmarshal([]byte(s), &v) != nil {
		return true
	}
	_, isString := v.(string)
	return !isString || strings.ContainsAny(s, "\n\t") || v.(string) != s
}

// plainString reports the strings YAML certainly reads back as themselves:
// a lowercase UUID, or printable ASCII that begins with a letter, is no
// bool or null word, holds neither ": " (a mapping) nor " #" (a comment)
// and neither ends with ':' (a key) nor with a space (trimmed). False means
// "ask the parser", never "quote"; FuzzPlainString holds it to
// parsedNeedsQuotes.
func plainString(s string) bool {
	if _, ok := packed.UUID(s); ok { // its dashes keep it from being read as a number or a date
		return true
	}
	if s == "" || !asciiLetter(s[0]) || s[len(s)-1] == ':' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

func asciiLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// quoteMemo remembers parsedNeedsQuotes' answers. It is emptied when full,
// so strings that never repeat (an ID in a message) cannot grow it.
var quoteMemo = memo{max: 4096}

type memo struct {
	mu  sync.Mutex
	max int
	m   map[string]bool
}

func (c *memo) get(s string) (q, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, ok = c.m[s]
	return q, ok
}

func (c *memo) put(s string, q bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[string]bool, c.max)
	}
	c.m[strings.Clone(s)] = q
}
