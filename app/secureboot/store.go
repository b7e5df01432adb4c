package secureboot

import (
	"bytes"
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

// readStore reads a variable file: a regular file (a FIFO would block, a
// device never end), opened without following a last symlink (the path
// was resolved), at most uefi.MaxFileBytes.
func readStore(path string) ([]byte, os.FileInfo, error) {
	if path == "" {
		return nil, nil, errors.New("no NVRAM file")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	}
	if st.Size() > uefi.MaxFileBytes {
		return nil, nil, fmt.Errorf("%s is %d MiB, larger than a variable file can be (%d MiB)", path, st.Size()>>20, uefi.MaxFileBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, uefi.MaxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	if int64(len(b)) > uefi.MaxFileBytes {
		return nil, nil, fmt.Errorf("%s grew past %d MiB while read", path, uefi.MaxFileBytes>>20)
	}
	return b, st, nil
}

// write writes one planned file: its state asked again (host), its
// content checked unchanged since the plan, a backup beside it, the
// atomic replace, then the file read back and verified; a file that does
// not verify gets its original back. f's Action and Detail say how it
// ended.
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
	cur, _, err := readStore(f.file)
	switch {
	case err != nil:
		fail("reading it again before writing: %v; untouched", err)
		return
	case !bytes.Equal(cur, f.before):
		fail("it changed since it was read: not written, untouched")
		return
	}
	if locked, err := inUse(f.file); err != nil || locked {
		fail("another process locked it since it was read: not written, untouched")
		return
	}
	bak, err := backup(f.file, cur, f.info, now)
	if err != nil {
		fail("its backup could not be written (%v): not written, untouched", err)
		return
	}
	f.Backup = bak
	if err := fileout.Replace(f.file, f.after); err != nil {
		fail("not replaced (%v): the original is untouched (a copy is at %s)", err, bak)
		return
	}
	got, _, err := readStore(f.file)
	if err == nil && !bytes.Equal(got, f.after) {
		err = errors.New("the file read back differs from what was written")
	}
	if err == nil {
		err = verifyWritten(f.before, got)
	}
	if err != nil {
		if rerr := fileout.Replace(f.file, f.before); rerr != nil {
			fail("written, but it did not verify (%v), and putting the original back failed (%v): restore it from %s", err, rerr, bak)
			return
		}
		fail("written, but it did not verify (%v): the original was put back (a copy is at %s)", err, bak)
		return
	}
	f.Action, f.Detail = ActUpdated, "written, read back and verified"
}

// verifyWritten is verify, for the file read back after writing (a
// variable: a test makes it fail, to see the original put back).
var verifyWritten = verify

// backup keeps the original beside the file, FILE.vtpmctl-<time>.bak
// (-1, -2, … when taken), created exclusively: no existing path is ever
// overwritten. It gets the file's owner, group and mode.
func backup(file string, data []byte, info os.FileInfo, now time.Time) (string, error) {
	base := file + ".vtpmctl-" + now.UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		p := base + ".bak"
		if i > 0 {
			p = fmt.Sprintf("%s-%d.bak", base, i)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if err := fill(f, data, info); err != nil {
			f.Close()
			os.Remove(p)
			return "", fmt.Errorf("%s: %v", p, err)
		}
		if err := f.Close(); err != nil {
			os.Remove(p)
			return "", fmt.Errorf("%s: %v", p, err)
		}
		return p, fileout.SyncDir(filepath.Dir(p))
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
