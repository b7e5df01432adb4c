package secureboot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/uefi"
)

// TestBackupNeverOverwrites: a path where the backup would go, a file
// or a symlink planted there, is left alone; the backup takes the next
// free name.
func TestBackupNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	orig := store2011(t)
	p := writeFile(t, dir, "guest_VARS.fd", orig)
	first := p + ".vtpmctl-20260701T120000Z.bak"
	writeFile(t, dir, filepath.Base(first), []byte("someone else's"))
	victim := writeFile(t, dir, "victim", []byte("keep me"))
	if err := os.Symlink(victim, p+".vtpmctl-20260701T120000Z-1.bak"); err != nil {
		t.Fatal(err)
	}
	res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if want := p + ".vtpmctl-20260701T120000Z-2.bak"; res.Files[0].Backup != want {
		t.Errorf("backup %q, want %q", res.Files[0].Backup, want)
	}
	if b, _ := os.ReadFile(first); string(b) != "someone else's" {
		t.Error("an existing file was overwritten")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Error("a planted symlink was followed")
	}
	if b, _ := os.ReadFile(res.Files[0].Backup); !bytes.Equal(b, orig) {
		t.Error("the backup is not the original")
	}
}

// TestUpdateWriteFailures: a file changed between the plan and the write
// is not written; a written file that does not verify gets its original
// back, and says where the backup is.
func TestUpdateWriteFailures(t *testing.T) {
	dir := t.TempDir()
	orig := store2011(t)
	p := writeFile(t, dir, "guest_VARS.fd", orig)
	changed := append(bytes.Clone(orig[:len(orig)-1]), 0)
	_, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now,
		Confirm: func(context.Context, []FileUpdate) error { return os.WriteFile(p, changed, 0o600) }})
	var fe *FailedError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "it changed since it was read: not written, untouched") {
		t.Fatalf("changed meanwhile: %v", err)
	}
	untouched(t, dir, p, changed)

	writeFile(t, dir, "guest_VARS.fd", orig)
	defer func(v func(a, b []byte) error) { verifyWritten = v }(verifyWritten)
	verifyWritten = func([]byte, []byte) error { return errors.New("db lost an entry") }
	res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now})
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "written, but it did not verify (db lost an entry): the original was put back (a copy is at "+p+".vtpmctl-") {
		t.Fatalf("not verified: %v", err)
	}
	untouched(t, dir, p, orig, filepath.Base(res.Files[0].Backup))
}

// untouched: the file holds orig and its directory nothing else (but
// the names allowed).
func untouched(t *testing.T, dir, p string, orig []byte, allowed ...string) {
	t.Helper()
	if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, orig) {
		t.Errorf("%s was changed (%v)", p, err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); n != filepath.Base(p) && !contains(allowed, n) {
			t.Errorf("%s left in %s", n, dir)
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func owner(t *testing.T, p string) (int, int, os.FileMode) {
	st := stat(t, p)
	sys := st.Sys().(*syscall.Stat_t)
	return int(sys.Uid), int(sys.Gid), st.Mode().Perm()
}

func stat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func secureBootOf(t *testing.T, b []byte) *uefi.SecureBoot {
	t.Helper()
	vs, err := uefi.ReadVarStore(b)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := vs.SecureBoot()
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// qemuLock takes the read lock QEMU's image locking takes on byte 100
// of an image it opens, from another open file description (until the
// test ends).
func qemuLock(t *testing.T, p string) {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	const fOFDSetlk = 37
	lk := syscall.Flock_t{Type: syscall.F_RDLCK, Start: 100, Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), fOFDSetlk, &lk); err != nil {
		t.Fatal(err)
	}
}
