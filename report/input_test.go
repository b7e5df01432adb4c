package report

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

// `report --from` reads files someone handed us: a FIFO must not hang
// the page (before: open blocked for ever) and a link to /dev/zero must
// not be read until memory runs out.
func TestLoadRefusesNonRegular(t *testing.T) {
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
			go func() { var in Inputs; done <- in.Load(path) }()
			select {
			case err := <-done:
				var nr *infile.NotRegularError
				if !errors.As(err, &nr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("Load(%s) = %v, want a not-a-regular-file error naming it", path, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Load(%s) still reading after 5 s", path)
			}
		})
	}
}
