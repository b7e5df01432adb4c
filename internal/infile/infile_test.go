package infile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "plan.yaml")
	os.WriteFile(reg, []byte("0123456789"), 0o600)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	os.Symlink("/dev/zero", zero)
	for _, tc := range []struct {
		name, path string
		max        int64
		want       string // substring of the error; "" = reads
	}{
		{"regular", reg, 0, ""},
		{"exactly the cap", reg, 10, ""},
		{"over the cap", reg, 9, "larger than"},
		{"fifo", fifo, 0, "a FIFO, not a regular file"},
		{"symlink to /dev/zero", zero, 0, "a device, not a regular file"},
		{"directory", dir, 0, "a directory"},
		{"missing", filepath.Join(dir, "nope"), 0, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var data []byte
			var err error
			go func() { data, err = ReadFile(tc.path, tc.max); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile hung")
			}
			if tc.want == "" {
				if err != nil || string(data) != "0123456789" {
					t.Fatalf("got %q, %v", data, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestGrowsWhileRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("abc"), 0o600)
	f, err := Open(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.WriteFile(p, []byte("abcdefgh"), 0o600) // same inode, grown
	buf := make([]byte, 16)
	var total int
	for {
		n, err := f.Read(buf)
		total += n
		if err != nil {
			var tl *TooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("err = %v after %d bytes, want TooLargeError", err, total)
			}
			return
		}
	}
}
