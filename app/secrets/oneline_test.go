package secrets

import (
	"errors"
	"testing"
)

// TestOneLine: joined errors stay apart on their one line.
func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.Join(errors.New("no token for project a"), errors.New("no token for project b")), "no token for project a; no token for project b"},
		{errors.New("HTTP 500:  \t server   said\tno"), "HTTP 500: server said no"},
		{errors.New("a\n\n  b  \n"), "a; b"},
	} {
		if got := oneLine(c.err); got != c.want {
			t.Errorf("oneLine(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
