package fileout

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReplace: the bytes as given (no redaction: a binary file may hold
// anything that looks like a token), the owner, group and mode kept, a
// symlink followed and kept, no temp file left; anything but a regular
// file refused and left as it was.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "guest_VARS.fd")
	if err := os.WriteFile(p, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(p, 4242, 4343); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	data := append([]byte("X-Auth-Token: gAAAAAB\x00\xff"), bytes.Repeat([]byte{0xFF}, 4096)...)
	for _, target := range []string{p, link} {
		if err := Replace(target, data); err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		got, _ := os.ReadFile(p)
		st, _ := os.Lstat(p)
		sys := st.Sys().(*syscall.Stat_t)
		if !bytes.Equal(got, data) || st.Mode().Perm() != 0o640 || (os.Geteuid() == 0 && (sys.Uid != 4242 || sys.Gid != 4343)) {
			t.Errorf("%s: %d bytes (equal %v), %o %d:%d", target, len(got), bytes.Equal(got, data), st.Mode().Perm(), sys.Uid, sys.Gid)
		}
	}
	if l, _ := os.Lstat(link); l.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, bad := range []string{fifo, sub, filepath.Join(dir, "absent")} {
		if err := Replace(bad, data); err == nil {
			t.Errorf("%s: replaced", bad)
		}
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
	if _, err := os.Stat(filepath.Join(dir, "absent")); err == nil {
		t.Error("a missing file was created")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}
