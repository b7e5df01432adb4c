package packed

import (
	"strings"
	"testing"
)

// A Copy adds on its own: the original's keys give back what they did.
func TestStringsCopy(t *testing.T) {
	var a Strings
	x, y := a.Index("x"), a.Index("y")
	c := a.Copy()
	w := c.Index("w")
	if z := a.Index("z"); a.At(z) != "z" || c.At(w) != "w" || a.At(x) != "x" || c.At(y) != "y" || a.Index("x") != x || c.Index("y") != y {
		t.Errorf("a: %q %q %q, c: %q %q", a.At(x), a.At(y), a.At(z), c.At(y), c.At(w))
	}
}

func TestUUID(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d", true},
		{"D1B0C3A2-7E6F-4A5B-9C8D-1E2F3A4B5C6D", false},
		{"d1b0c3a27e6f4a5b9c8d1e2f3a4b5c6d", false},
		{"d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6", false},
		{"d1b0c3a2+7e6f-4a5b-9c8d-1e2f3a4b5c6d", false},
		{"g1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d", false},
		{"", false},
	} {
		u, ok := UUID(tc.in)
		if ok != tc.ok || ok && FormatUUID(u) != tc.in {
			t.Errorf("%q: %v, %q", tc.in, ok, FormatUUID(u))
		}
	}
}

func FuzzUUID(f *testing.F) {
	f.Add("d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d")
	f.Fuzz(func(t *testing.T, s string) {
		if u, ok := UUID(s); ok && FormatUUID(u) != s {
			t.Fatalf("%q reads as a UUID that prints as %q", s, FormatUUID(u))
		}
	})
}

// Either case reads as the lower-case form, the one UUID reads; nothing
// else is a UUID.
func TestCanonicalUUID(t *testing.T) {
	const lower = "d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d"
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{lower, lower, true},
		{"D1B0C3A2-7E6F-4A5B-9C8D-1E2F3A4B5C6D", lower, true},
		{"d1B0c3A2-7e6F-4a5B-9c8D-1e2F3a4B5c6D", lower, true},
		{"d1b0c3a27e6f4a5b9c8d1e2f3a4b5c6d", "", false},
		{"G1B0C3A2-7E6F-4A5B-9C8D-1E2F3A4B5C6D", "", false},
		{"{D1B0C3A2-7E6F-4A5B-9C8D-1E2F3A4B5C}", "", false},
		{"", "", false},
	} {
		if got, ok := CanonicalUUID(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("%q: %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzCanonicalUUID(f *testing.F) {
	f.Add("D1B0C3A2-7E6F-4A5B-9C8D-1E2F3A4B5C6D")
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := CanonicalUUID(s)
		if _, lower := UUID(c); ok != lower || ok && !strings.EqualFold(c, s) {
			t.Fatalf("%q: canonical %q (%v)", s, c, ok)
		}
	})
}
