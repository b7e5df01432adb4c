// Package infiletest holds the hostile inputs every reader of user-named
// files is tested with: a FIFO (opening it for reading would wait for a
// writer for ever) and a link to /dev/zero (it never ends).
package infiletest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Paths makes a FIFO and a symlink to /dev/zero, each named name in a
// directory of its own.
func Paths(t testing.TB, name string) []string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	zero := filepath.Join(t.TempDir(), name)
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	return []string{fifo, zero}
}

// Refused calls read on each of Paths(name) and fails the test unless it
// returns, within 5 s, an error that names the path and says it is not a
// regular file.
func Refused(t *testing.T, name string, read func(path string) error) {
	t.Helper()
	for _, path := range Paths(t, name) {
		done := make(chan error, 1)
		go func() { done <- read(path) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("reading %s: %v, want an error naming it as not a regular file", path, err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("reading %s: still reading after 5 s", path)
		}
	}
}
