package output

import (
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
		{"yes", false, false},
		{"True", false, true},
		{"NULL", false, true},
		{"off", false, false},
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

func FuzzPlainString(f *testing.F) {
	for _, s := range []string{"340ca71c-0001-4000-a000-000000000000", "vm-1", "a: b", "yes", "x #y", "1e5", "Off", "a:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if plainString(s) && parsedNeedsQuotes(s) {
			t.Fatalf("plainString(%q) but YAML does not read it back as itself", s)
		}
		if needsQuotes(s) != parsedNeedsQuotes(s) {
			t.Fatalf("needsQuotes(%q) differs from the parser's answer", s)
		}
	})
}
