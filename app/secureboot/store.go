package secureboot

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/uefi"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
)

// readStore reads a variable file by path (status, which writes
// nothing): a regular file, opened without following a last symlink.
func readStore(path string) ([]byte, os.FileInfo, error) {
	if path == "" {
		return nil, nil, errors.New("no NVRAM file")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readOpen(f)
}

// readOpen reads an open variable file from its start: a regular file
// (a FIFO would block, a device never end), at most uefi.MaxFileBytes.
func readOpen(f *os.File) ([]byte, os.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file (%s)", f.Name(), st.Mode().Type())
	}
	if st.Size() > uefi.MaxFileBytes {
		return nil, nil, fmt.Errorf("%s is %d MiB, larger than a variable file can be (%d MiB)", f.Name(), st.Size()>>20, uefi.MaxFileBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(io.NewSectionReader(f, 0, uefi.MaxFileBytes+1), uefi.MaxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", f.Name(), err)
	}
	if int64(len(b)) > uefi.MaxFileBytes {
		return nil, nil, fmt.Errorf("%s grew past %d MiB while read", f.Name(), uefi.MaxFileBytes>>20)
	}
	return b, st, nil
}

// write writes one planned file, every step relative to the directory
// opened at plan time (f.dir), no path resolved again: the domain's
// state asked again (host); the file opened and held with exclusive
// locks from here to the end, so that a guest starting meanwhile fails
// to take its own lock rather than run on the old inode; its content
// checked unchanged since the plan; a backup beside it; the new content
// held once more to the firmware's walk (uefi.CheckAsFirmware) before
// the rename; the rename; the file read back and verified (a file that
// does not verify gets its original back); the domain's state asked once
// more. f's Action and Detail say how it ended.
func write(f *FileUpdate, req UpdateRequest, h *hostcheck.NVRAMHost, now time.Time) {
	fail := func(format string, a ...any) { f.Action, f.Detail = ActFailed, fmt.Sprintf(format, a...) }
	if h != nil {
		st, saved, err := stateNow(h, req.Connect, f.UUID)
		switch {
		case err != nil:
			fail("libvirt did not tell the domain's state before writing (%v): not written, untouched", err)
			return
		case st != hostcheck.DomainShutOff || saved:
			fail("the domain is %s now, started since it was planned: not written, untouched", orUnknown(st))
			return
		}
	}
	held, err := f.dir.Open(f.name, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		fail("opening it again before writing: %v; untouched", err)
		return
	}
	defer held.Close() // the locks go with it, after the rename
	if err := holdExclusive(held); err != nil {
		fail("another process holds it since it was read (%v): not written, untouched", err)
		return
	}
	cur, info, err := readOpen(held)
	switch {
	case err != nil:
		fail("reading it again before writing: %v; untouched", err)
		return
	case !os.SameFile(info, f.info) || !bytes.Equal(cur, f.before):
		fail("it changed since it was read: not written, untouched")
		return
	}
	bak, err := backup(f.dir, f.name, cur, f.info, now)
	if err != nil {
		fail("its backup could not be written (%v): not written, untouched", err)
		return
	}
	f.Backup = filepath.Join(filepath.Dir(f.file), bak) // beside the file itself (f.NVRAM may be a link to it)
	if err := uefi.CheckAsFirmware(cur, f.after, f.planned); err != nil {
		fail("the new content failed the firmware's walk (%v): not written, untouched (a copy is at %s)", err, f.Backup)
		return
	}
	if err := replaceIn(f.dir, f.name, f.after, f.info); err != nil {
		fail("not replaced (%v): the original is untouched (a copy is at %s)", err, f.Backup)
		return
	}
	err = readBack(f)
	if err != nil {
		if rerr := replaceIn(f.dir, f.name, f.before, f.info); rerr != nil {
			fail("written, but it did not verify (%v), and putting the original back failed (%v): restore it from %s", err, rerr, f.Backup)
			return
		}
		fail("written, but it did not verify (%v): the original was put back (a copy is at %s)", err, f.Backup)
		return
	}
	f.Action, f.Detail = ActUpdated, "written, read back and verified"
	if h != nil {
		if st, saved, err := stateNow(h, req.Connect, f.UUID); err != nil {
			f.Detail += fmt.Sprintf("; libvirt did not tell the domain's state after the write (%v)", err)
		} else if st != hostcheck.DomainShutOff || saved {
			// The old inode was locked until now: a QEMU that opened it
			// could not take its lock, so a guest running now opened the
			// new file.
			f.Detail += fmt.Sprintf("; the domain is %s now: it started after the rename, on the new file", orUnknown(st))
		}
	}
}

// readBack reads the file again through the directory and verifies it.
func readBack(f *FileUpdate) error {
	r, err := f.dir.Open(f.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer r.Close()
	got, _, err := readOpen(r)
	if err == nil && !bytes.Equal(got, f.after) {
		err = errors.New("the file read back differs from what was written")
	}
	if err == nil {
		err = verifyWritten(f.before, got)
	}
	return err
}

// verifyWritten is verify, for the file read back after writing (a
// variable: a test makes it fail, to see the original put back).
var verifyWritten = verify

// replaceIn writes data to a new temporary file in dir (created
// exclusively, info's owner, group and mode, synced) and renames it over
// name; the temporary file is removed on any failure.
func replaceIn(dir *fileout.Dir, name string, data []byte, info os.FileInfo) error {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := "." + name + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	t, err := dir.Open(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := fill(t, data, info); err != nil {
		t.Close()
		dir.Remove(tmp)
		return err
	}
	if err := t.Close(); err != nil {
		dir.Remove(tmp)
		return err
	}
	if err := dir.Rename(tmp, name); err != nil {
		dir.Remove(tmp)
		return err
	}
	return dir.Sync()
}

// backup keeps the original beside the file, NAME.vtpmctl-<time>.bak
// (-1, -2, … when taken), created exclusively in the directory: no
// existing path is ever overwritten or followed. It gets the file's
// owner, group and mode; its name is returned.
func backup(dir *fileout.Dir, name string, data []byte, info os.FileInfo, now time.Time) (string, error) {
	base := name + ".vtpmctl-" + now.UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		p := base + ".bak"
		if i > 0 {
			p = fmt.Sprintf("%s-%d.bak", base, i)
		}
		f, err := dir.Open(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if err := fill(f, data, info); err != nil {
			f.Close()
			dir.Remove(p)
			return "", fmt.Errorf("%s: %v", p, err)
		}
		if err := f.Close(); err != nil {
			dir.Remove(p)
			return "", fmt.Errorf("%s: %v", p, err)
		}
		return p, dir.Sync()
	}
	return "", fmt.Errorf("%s: 100 backups of this second already exist", base)
}

// fill gives f info's owner, group and mode (a caller that cannot chown
// keeps its own, mode 0600 at most) and writes data, synced.
func fill(f *os.File, data []byte, info os.FileInfo) error {
	perm := info.Mode().Perm()
	if sys, ok := info.Sys().(*syscall.Stat_t); ok && f.Chown(int(sys.Uid), int(sys.Gid)) != nil {
		perm &= 0o600
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}
