package output

import (
	"regexp"
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

// parsedNeedsQuotes is the rule itself: YAML 1.2 (this package's parser)
// reads s back as s, a string, and so does YAML 1.1 (yaml11Typed).
func parsedNeedsQuotes(s string) bool {
	if s == "" || yaml11Typed(s) {
		return true
	}
	var v any
	if yaml.Unmarshal([]byte(s), &v) != nil {
		return true
	}
	_, isString := v.(string)
	return !isString || strings.ContainsAny(s, "\n\t") || v.(string) != s
}

// yaml11Typed reports the plain scalars a YAML 1.1 reader (PyYAML, so
// Ansible; SnakeYAML; Ruby's Psych) reads as another type than a string,
// or refuses to read (PyYAML's safe_load has no type for "="), where
// YAML 1.2 may read a string: the bool words in any case (nvram_kept:
// yes, a bug's carried: no), null and ~, ints with _ or , between digits,
// 0b, 0x and 0-led octals, sexagesimal numbers (1:20 is 80), floats with
// _ or a bare dot, .inf and .nan in any case, timestamps with a space
// before the time, the merge key << and the value key =. It is the YAML
// 1.1 type regexps (yaml.org/type), loosened where a reader is looser
// and for case, but for the float's [0-9.]* (a typo of [0-9_]*: no
// reader reads a version such as 31.3.0 as a float).
func yaml11Typed(s string) bool {
	if len(s) <= 5 && yaml11Word(s) {
		return true
	}
	if s == "" || !strings.ContainsAny(s[:1], "+-.0123456789<=") {
		return false // every other form begins with a sign, a digit, a dot, < or =
	}
	return yaml11Scalar.MatchString(s)
}

// yaml11Word: YAML 1.1's bool words (y, n, yes, no, on, off, true,
// false) and null, in any case, and ~.
func yaml11Word(s string) bool {
	switch len(s) {
	case 1:
		return s == "~" || s == "y" || s == "Y" || s == "n" || s == "N"
	case 2:
		return strings.EqualFold(s, "no") || strings.EqualFold(s, "on")
	case 3:
		return strings.EqualFold(s, "yes") || strings.EqualFold(s, "off")
	case 4:
		return strings.EqualFold(s, "true") || strings.EqualFold(s, "null")
	case 5:
		return strings.EqualFold(s, "false")
	}
	return false
}

var yaml11Scalar = regexp.MustCompile(`^(?:` +
	`[-+]?0b[01_,]+|[-+]?0x[0-9a-fA-F_,]+|[-+]?[0-9][0-9_,]*` + // int: binary, hex, decimal, 0-led octal
	`|[-+]?[0-9][0-9_,]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?` + // sexagesimal int and float
	`|[-+]?(?:[0-9][0-9_,]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_,]*[eE][-+]?[0-9]+` + // float
	`|[-+]?\.(?i:inf)|\.(?i:nan)` +
	`|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?` + // timestamp
	`|<<|=)$`)

// plainString reports the strings YAML, 1.1 and 1.2, certainly reads back
// as themselves: a lowercase UUID, or printable ASCII that begins with a
// letter, is no bool or null word (yaml11Word: every other typed form of
// YAML 1.1 begins with a digit, a sign, a dot or a symbol), holds neither
// ": " (a mapping) nor " #" (a comment) and neither ends with ':' (a key)
// nor with a space (trimmed). False means "ask the parser", never
// "quote"; FuzzPlainString holds it to parsedNeedsQuotes.
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
	return len(s) > 5 || !yaml11Word(s)
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
