package main

import (
	"errors"
	"fmt"
	"testing"
)

// TestErrorLineJoinsParts: an error is one line, and the parts of a
// joined error (errors.Join's newline, a body's lines) stay apart, with
// "; " between them, not run together with a bare space.
func TestErrorLineJoinsParts(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"joined", errors.Join(errors.New(`no flavor "a"`), errors.New(`no flavor "b"`)), `no flavor "a"; no flavor "b"`},
		{"wrapped join", fmt.Errorf("flavor set: %w", errors.Join(errors.New("a"), errors.New("b"))), "flavor set: a; b"},
		{"blank lines and runs of spaces", errors.New("HTTP 500:\n\n  <h1>Oops</h1>\r\n\tretry  later \n"), "HTTP 500:; <h1>Oops</h1>; retry later"},
		{"one line untouched", errors.New("no image named x"), "no image named x"},
	} {
		if got := errorLine(c.err.Error()); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFlavorSetUnknownFlavorsOneLine: two unknown flavors are two
// messages on the one error line.
func TestFlavorSetUnknownFlavorsOneLine(t *testing.T) {
	fixtureCloud(t)
	_, errs, code := runCLI(t, "--os-cloud", "fake", "flavor", "set", "no-such", "other", "--tpm-version", "2.0", "--yes")
	want := "vtpmctl: no flavor named or with ID \"no-such\"; no flavor named or with ID \"other\"\n"
	if code != exitUsage || errs != want {
		t.Errorf("exit %d, stderr %q, want exit 2 and %q", code, errs, want)
	}
}
