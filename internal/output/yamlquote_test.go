package output

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every string plainString passes must be one YAML reads back as itself.
func TestPlainStringAgreesWithParser(t *testing.T) {
	for _, tc := range []struct {
		s     string
		plain bool // plainString answers without the parser
		quote bool // what the parser says
	}{
		{"340ca71c-0001-4000-a000-000000000000", true, false},
		{"340CA71C-0001-4000-A000-00000000000F", false, false},
		{"340ca71c-0001-4000-a000-00000000000g", false, false},
		{"340ca71c000000070000000000000002", false, false},
		{"1e10", false, true},
		{"2.0", false, true},
		{"2026-12-06", false, true},
		{"vm-000001", true, false},
		{"created by user-00005 (340ca71c000000080000000000000005)", true, false},
		{"yes", false, true}, // YAML 1.1's bool
		{"True", false, true},
		{"NULL", false, true},
		{"off", false, true},
		{"1:20", false, true}, // YAML 1.1's 80
		{"a: b", false, true},
		{"key:", false, true},
		{"a #comment", false, true},
		{"a#b", true, false},
		{"trailing ", false, true},
		{"tab\there", false, true},
		{"line\nbreak", false, true},
		{"~", false, true},
		{"", false, true},
		{"- item", false, true},
		{"snapshots and backups carry no TPM state: a rebuild", false, true},
		{"naïve", false, false},
	} {
		if got := plainString(tc.s); got != tc.plain {
			t.Errorf("plainString(%q) = %v, want %v", tc.s, got, tc.plain)
		}
		if got := parsedNeedsQuotes(tc.s); got != tc.quote {
			t.Errorf("parsedNeedsQuotes(%q) = %v, want %v", tc.s, got, tc.quote)
		}
		if got := needsQuotes(tc.s); got != tc.quote {
			t.Errorf("needsQuotes(%q) = %v, want %v", tc.s, got, tc.quote)
		}
		if tc.plain && tc.quote {
			t.Errorf("case %q: a plain string cannot need quotes", tc.s)
		}
	}
}

// The memo is emptied when full: strings that never repeat do not grow it.
func TestQuoteMemoBounded(t *testing.T) {
	m := memo{max: 8}
	for i := range 100 {
		m.put(strings.Repeat("x", i), i%2 == 0)
		if len(m.m) > m.max {
			t.Fatalf("after %d puts the memo holds %d, max %d", i+1, len(m.m), m.max)
		}
	}
	if q, ok := m.get(strings.Repeat("x", 99)); !ok || q {
		t.Errorf("the last put is remembered as quote=false: got %v, %v", q, ok)
	}
	if _, ok := m.get(""); ok {
		t.Errorf("a string put before the memo was emptied is still remembered")
	}
}

// TestYAMLQuotesWhatReadersRetype: a string that a YAML 1.1 reader
// (PyYAML, so Ansible) or a YAML 1.2 one reads as another type is
// quoted; one both read as itself is not.
func TestYAMLQuotesWhatReadersRetype(t *testing.T) {
	for _, tc := range []struct {
		s     string
		quote bool
	}{
		// YAML 1.1's bools, in any case, and nulls
		{"yes", true}, {"Yes", true}, {"YES", true}, {"yEs", true}, {"no", true}, {"No", true}, {"NO", true},
		{"on", true}, {"On", true}, {"ON", true}, {"off", true}, {"OFF", true}, {"oFf", true},
		{"y", true}, {"Y", true}, {"n", true}, {"N", true},
		{"true", true}, {"TRUE", true}, {"tRUE", true}, {"false", true}, {"False", true},
		{"null", true}, {"Null", true}, {"nULL", true}, {"~", true}, {"", true},
		// numbers as YAML 1.1 reads them
		{"1:20", true}, {"-1:20", true}, {"190:20:30", true}, {"1:20.5", true}, {"10:30", true},
		{"0755", true}, {"0o755", true}, {"0b1010", true}, {"0x1F", true}, {"0x_1f", true}, {"1_000", true}, {"1,000", true},
		{"1.5", true}, {"1.", true}, {".5", true}, {"1_0.5", true}, {"1e5", true}, {"6.8523015e+5", true}, {"-.5", true},
		{".inf", true}, {"-.Inf", true}, {".NaN", true}, {".nan", true}, {"42", true}, {"-7", true}, {"+7", true}, {"08", true},
		// timestamps, YAML 1.1's other forms
		{"2026-12-06", true}, {"2026-1-6 10:00:00", true}, {"2026-12-06T10:00:00Z", true}, {"2001-12-14 21:59:43.10 -5", true},
		{"2001-12-14t21:59:43.10-05:00", true},
		{"<<", true}, {"=", true},
		// strings, in both
		{"yess", false}, {"nope", false}, {"online", false}, {"offline", false}, {"nullable", false}, {"Yesterday", false},
		{"unknown", false}, {"31.3.0", false}, {"2025.1.1", false}, {"v1:20", false}, {"1:2:3:4a", false}, {"a=b", false},
		{"==", false}, {"<", false}, {"..", false}, {"instance-0000000a", false},
		{"340ca71c-0001-4000-a000-000000000000", false}, {"2026-12-06 meeting", false}, {"12:30 meeting", false},
	} {
		if got := needsQuotes(tc.s); got != tc.quote {
			t.Errorf("needsQuotes(%q) = %v, want %v", tc.s, got, tc.quote)
		}
		if plainString(tc.s) && tc.quote {
			t.Errorf("plainString(%q): the shortcut passes a string that needs quotes", tc.s)
		}
		// and as written: a struct's field (the JSON path) and a Record's
		for _, v := range []any{struct {
			V string `json:"v"`
		}{tc.s}, Record{{Name: "v", Value: tc.s}}} {
			var b strings.Builder
			if err := Write(&b, Options{Format: "yaml"}, v); err != nil {
				t.Fatal(err)
			}
			quoted := strings.HasPrefix(b.String(), "v: \"") || strings.HasPrefix(b.String(), "v: '")
			if quoted != tc.quote {
				t.Errorf("%T with %q written as %q, quoted %v, want %v", v, tc.s, b.String(), quoted, tc.quote)
			}
		}
	}
}

// Every case of every YAML 1.1 bool word, and of null, is quoted, and
// never passes the shortcut.
func TestYAMLBoolWordsAnyCase(t *testing.T) {
	for _, w := range yaml11Words {
		for _, s := range caseVariants(w) {
			if plainString(s) || !needsQuotes(s) {
				t.Errorf("%q: plainString %v, needsQuotes %v", s, plainString(s), needsQuotes(s))
			}
		}
	}
}

// yaml11Words are YAML 1.1's bool words (yaml.org/type/bool.html) and
// null, whose every case this package quotes.
var yaml11Words = []string{"y", "n", "yes", "no", "on", "off", "true", "false", "null"}

func caseVariants(w string) []string {
	out := []string{""}
	for _, r := range w {
		var next []string
		for _, p := range out {
			next = append(next, p+strings.ToLower(string(r)), p+strings.ToUpper(string(r)))
		}
		out = next
	}
	return out
}

// pyyamlTyped is PyYAML's resolver (yaml/resolver.py, Resolver's implicit
// resolvers), copied, not derived from this package's rule: true when
// yaml.safe_load reads plain s as no string (or refuses it).
func pyyamlTyped(s string) bool {
	for _, re := range pyyamlResolvers {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

var pyyamlResolvers = []*regexp.Regexp{
	regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`),
	regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`),
	regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`),
	regexp.MustCompile(`^(?:<<)$`),
	regexp.MustCompile(`^(?:~|null|Null|NULL|)$`),
	regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`),
	regexp.MustCompile(`^(?:=)$`),
	// YAML 1.1's own bool (yaml.org/type/bool.html) adds y and n
	regexp.MustCompile(`^(?:y|Y|n|N)$`),
}

func FuzzPlainString(f *testing.F) {
	for _, s := range []string{"340ca71c-0001-4000-a000-000000000000", "vm-1", "a: b", "yes", "x #y", "1e5", "Off", "a:",
		"1:20", "0755", "1_000", "2026-1-6 10:00:00", "=", "<<", ".Inf", "nULL", "~"} {
		f.Add(s)
	}
	for _, w := range yaml11Words {
		for _, s := range caseVariants(w) {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		if plainString(s) && parsedNeedsQuotes(s) {
			t.Fatalf("plainString(%q) but YAML does not read it back as itself", s)
		}
		if needsQuotes(s) != parsedNeedsQuotes(s) {
			t.Fatalf("needsQuotes(%q) differs from the parser's answer", s)
		}
		if pyyamlTyped(s) && !needsQuotes(s) {
			t.Fatalf("%q: PyYAML reads it as no string, but it is not quoted", s)
		}
		if slices.Contains(yaml11Words, strings.ToLower(s)) && (plainString(s) || !needsQuotes(s)) {
			t.Fatalf("%q: a YAML 1.1 bool or null word, in some case, is not quoted", s)
		}
	})
}
