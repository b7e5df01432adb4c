package fileout

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/vtpmctl/vtpmctl/internal/redact"
)

// Modes: Public files get 0666 less the umask, Private ones (naming
// secrets, owners or projects) 0600.
const (
	Public  os.FileMode = 0o666
	Private os.FileMode = 0o600
)

// Write calls fill with a writer for path. Nothing is left behind and the
// old content stays when fill fails. What fill writes passes through
// redact: a report or JUnit file may carry a server's error text.
func Write(path string, mode os.FileMode, stdout io.Writer, fill func(io.Writer) error) error {
	return write(path, mode, stdout, func(w io.Writer) error {
		rw := redact.NewWriter(w)
		if err := fill(rw); err != nil {
			return err
		}
		return rw.Flush()
	})
}

func write(path string, mode os.FileMode, stdout io.Writer, fill func(io.Writer) error) error {
	if path == "-" {
		return fill(stdout)
	}
	if path == "" {
		return errors.New("empty output path")
	}
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		// Write where the link points, and keep the link.
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return fmt.Errorf("%s: a symlink to nothing (%v)", path, err)
		}
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		return writeInPlace(path, target, fill)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: %v", path, err)
	}
	if err != nil {
		st = nil // a new file
	}
	return writeAtomic(path, target, mode, st, fill)
}

func writeInPlace(path, target string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// keepAccess gives the temp file that replaces old the old file's owner,
// group and permission bits, never wider than mode: a 0600 plan must not
// become 0644, a 0640 report must stay readable by its group and no other.
// Who cannot set the group (not root, not a member) drops the group bits,
// so a default group never gets what the old one had.
func keepAccess(f *os.File, old os.FileInfo, mode os.FileMode) error {
	perm := old.Mode().Perm() & mode
	if sys, ok := old.Sys().(*syscall.Stat_t); ok {
		if f.Chown(int(sys.Uid), int(sys.Gid)) != nil && f.Chown(-1, int(sys.Gid)) != nil {
			perm &^= 0o070
		}
	}
	return f.Chmod(perm)
}

func writeAtomic(path, target string, mode os.FileMode, old os.FileInfo, fill func(io.Writer) error) error {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	var f *os.File
	var err error
	for try := 0; try < 10; try++ {
		var rnd [8]byte
		rand.Read(rnd[:])
		// O_EXCL: a planted file or symlink at the temp name is never followed.
		f, err = os.OpenFile(filepath.Join(dir, "."+base+"."+hex.EncodeToString(rnd[:])+".tmp"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, os.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if old != nil {
		// before any byte is written: the content never has wider access
		if err := keepAccess(f, old, mode); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
	}
	if err := fill(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	// The target may have become something else since the Stat: only a
	// regular file or nothing may be replaced.
	if st, err := os.Lstat(target); err == nil && !st.Mode().IsRegular() {
		os.Remove(tmp)
		ok = true
		return fmt.Errorf("%s: changed into a non-regular file while writing; not replaced", path)
	}
	if err := os.Rename(tmp, target); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	ok = true
	return nil
}
