package hostcheck

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/infile"
)

// A host report is a file someone handed us: a FIFO must not hang the
// reader (before: open blocked for ever waiting for a writer) and a
// *.json link to /dev/zero must not be read until memory runs out.
func TestReadReportRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, zero} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := ReadReport(path); done <- err }()
			select {
			case err := <-done:
				var nr *infile.NotRegularError
				if !errors.As(err, &nr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("ReadReport(%s) = %v, want a not-a-regular-file error naming it", path, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadReport(%s) still reading after 5 s", path)
			}
		})
	}
}
