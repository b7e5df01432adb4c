package fileout

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errSignal = errors.New("interrupted (SIGTERM)")

// TestInterruptedWriteKeepsTheOldFile: a run stopped before Write, or
// while fill writes, neither creates nor replaces the file (the old one
// stays byte for byte, no temp file is left) and writes nothing more to
// stdout; the error is an InterruptedError with the run's cause, Partial
// only where a part went out in place.
func TestInterruptedWriteKeepsTheOldFile(t *testing.T) {
	old := []byte("the previous report\n")
	for _, tc := range []struct {
		name    string
		before  bool // stopped before Write, else in fill's second write
		stdout  bool
		existed bool
	}{
		{"before, over a file", true, false, true},
		{"before, a new file", true, false, false},
		{"in fill, over a file", false, false, true},
		{"in fill, a new file", false, false, false},
		{"before, stdout", true, true, false},
		{"in fill, stdout", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "r.html")
			if tc.existed {
				os.WriteFile(p, old, 0o600)
			}
			if tc.stdout {
				p = "-"
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			if tc.before {
				cancel(errSignal)
			}
			var stdout bytes.Buffer
			fill := func(w io.Writer) error {
				io.WriteString(w, strings.Repeat("first part ", 10000)) // past redact's buffer
				cancel(errSignal)
				_, err := io.WriteString(w, "second part")
				return err
			}
			err := Write(ctx, p, Private, &stdout, fill)
			var ie *InterruptedError
			if !errors.As(err, &ie) || !errors.Is(err, errSignal) || ie.Partial != (tc.stdout && !tc.before) {
				t.Fatalf("err %#v", err)
			}
			if strings.Contains(stdout.String(), "second") || (tc.before && stdout.Len() > 0) {
				t.Errorf("stdout got %d bytes after the stop", stdout.Len())
			}
			if tc.stdout {
				return
			}
			got, rerr := os.ReadFile(p)
			switch {
			case tc.existed && !bytes.Equal(got, old):
				t.Errorf("the old file became %d bytes", len(got))
			case !tc.existed && !os.IsNotExist(rerr):
				t.Errorf("a new file was created: %v", rerr)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}
