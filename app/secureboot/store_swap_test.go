//go:build linux

package secureboot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// swapAfterPlan runs Update on one file and calls swap between the plan
// and the write (from the confirmation, which comes after every file is
// planned).
func swapAfterPlan(t *testing.T, p string, swap func()) (UpdateResult, error) {
	t.Helper()
	return Update(context.Background(), UpdateRequest{NVRAM: p, Now: now,
		Confirm: func(context.Context, []FileUpdate) error { swap(); return nil }})
}

// TestWriteFollowsNoSwappedPath: a file or its directory swapped for a
// symlink after the plan is never written through: the write fails (or
// goes to the directory opened at plan time), and the file the link
// points to is untouched.
func TestWriteFollowsNoSwappedPath(t *testing.T) {
	victimBytes := []byte("a host file root must never overwrite\n")
	t.Run("file swapped for a link", func(t *testing.T) {
		dir := t.TempDir()
		victim := writeFile(t, t.TempDir(), "victim", victimBytes)
		p := writeFile(t, dir, "guest_VARS.fd", store2011(t))
		res, err := swapAfterPlan(t, p, func() {
			os.Rename(p, p+".moved")
			if err := os.Symlink(victim, p); err != nil {
				t.Fatal(err)
			}
		})
		if err == nil || res.Files[0].Action != ActFailed {
			t.Fatalf("wrote through a swapped link: %v %+v", err, res.Files[0])
		}
		if b, _ := os.ReadFile(victim); !bytes.Equal(b, victimBytes) {
			t.Fatal("the link's target was written")
		}
		if lst, _ := os.Lstat(p); lst.Mode()&os.ModeSymlink == 0 {
			t.Fatal("the link was replaced")
		}
	})
	t.Run("directory swapped for a link", func(t *testing.T) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "nvram")
		os.Mkdir(dir, 0o755)
		p := writeFile(t, dir, "guest_VARS.fd", store2011(t))
		elsewhere := t.TempDir()
		victim := writeFile(t, elsewhere, "guest_VARS.fd", victimBytes)
		res, err := swapAfterPlan(t, p, func() {
			os.Rename(dir, dir+".moved")
			if err := os.Symlink(elsewhere, dir); err != nil {
				t.Fatal(err)
			}
		})
		if b, _ := os.ReadFile(victim); !bytes.Equal(b, victimBytes) {
			t.Fatalf("the file behind the swapped directory was written (%v)", err)
		}
		if err != nil || res.Files[0].Action != ActUpdated {
			t.Fatalf("%v %+v", err, res.Files[0])
		}
		// written in the directory opened at plan time, now at dir.moved
		got, _ := os.ReadFile(filepath.Join(dir+".moved", "guest_VARS.fd"))
		if err := verify(store2011(t), got); err != nil {
			t.Fatalf("the planned directory's file: %v", err)
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 1 {
			t.Fatalf("%d files in the link's target directory, want the victim alone", len(ents))
		}
	})
}

// TestFlockSeenAsInUse: a flock(2) lock held by another process (here,
// another open file description) refuses the file, as an fcntl lock does.
func TestFlockSeenAsInUse(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "guest_VARS.fd", store2011(t))
	other, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now})
	var refused *RefusedError
	if !errors.As(err, &refused) || res.Files[0].Refusal != RefuseInUse {
		t.Fatalf("a flock(2)-locked file: %v %+v", err, res.Files[0])
	}
}

// TestFileHeldThroughTheWrite: a guest whose QEMU opened the file before
// the rename cannot take its image lock on that (old) inode while update
// writes: it fails to start rather than run on a file about to be
// replaced. After the write the new file takes the lock.
func TestFileHeldThroughTheWrite(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "guest_VARS.fd", store2011(t))
	var early *os.File // opened by path before the write, as a starting QEMU would
	t.Cleanup(func() {
		if early != nil {
			early.Close()
		}
	})
	var during error
	old := verifyWritten
	t.Cleanup(func() { verifyWritten = old })
	verifyWritten = func(before, after []byte) error {
		// after the rename, while update still holds the old inode
		lk := unix.Flock_t{Type: unix.F_RDLCK, Start: 100, Len: 1}
		during = unix.FcntlFlock(early.Fd(), unix.F_OFD_SETLK, &lk)
		return old(before, after)
	}
	res, err := Update(context.Background(), UpdateRequest{NVRAM: p, Now: now,
		Confirm: func(context.Context, []FileUpdate) error {
			var err error
			early, err = os.OpenFile(p, os.O_RDWR, 0)
			return err
		}})
	if err != nil || res.Files[0].Action != ActUpdated {
		t.Fatalf("%v %+v", err, res.Files[0])
	}
	if during == nil {
		t.Fatal("a QEMU holding the old inode took its lock during the write")
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := holdExclusive(f); err != nil {
		t.Fatalf("the new file is still locked after the write: %v", err)
	}
	if !strings.HasSuffix(res.Files[0].Detail, "verified") {
		t.Errorf("detail %q", res.Files[0].Detail)
	}
}

// TestHoldExclusiveConflictsWithQEMU: the lock update holds conflicts
// with the OFD read lock QEMU takes on an image's permission bytes, and
// with an flock(2) holder.
func TestHoldExclusiveConflictsWithQEMU(t *testing.T) {
	p := writeFile(t, t.TempDir(), "f", []byte("x"))
	a, _ := os.OpenFile(p, os.O_RDWR, 0)
	defer a.Close()
	if err := holdExclusive(a); err != nil {
		t.Fatal(err)
	}
	b, _ := os.OpenFile(p, os.O_RDWR, 0)
	defer b.Close()
	lk := unix.Flock_t{Type: unix.F_RDLCK, Start: 100, Len: 1}
	if err := unix.FcntlFlock(b.Fd(), unix.F_OFD_SETLK, &lk); err == nil {
		t.Fatal("QEMU's lock was granted while update holds the file")
	}
	if err := unix.Flock(int(b.Fd()), unix.LOCK_SH|unix.LOCK_NB); err == nil {
		t.Fatal("a flock(2) was granted while update holds the file")
	}
}

// TestBackupNamedWhereItIs: --nvram given as a link in another directory
// writes the file the link points to, and the backup reported is the one
// beside that file.
func TestBackupNamedWhereItIs(t *testing.T) {
	real := writeFile(t, t.TempDir(), "guest_VARS.fd", store2011(t))
	link := filepath.Join(t.TempDir(), "vars-link.fd")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	res, err := Update(context.Background(), UpdateRequest{NVRAM: link, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Files[0]
	if b, err := os.ReadFile(f.Backup); err != nil || !bytes.Equal(b, store2011(t)) || filepath.Dir(f.Backup) != filepath.Dir(real) {
		t.Fatalf("backup %q: %v", f.Backup, err)
	}
	if lst, _ := os.Lstat(link); lst.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
}
