package fileout

import (
	"context"
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
//
// ctx is the run's: a run that did not finish publishes nothing. Once
// ctx is done, Write neither creates nor replaces a file (the old one
// stays byte for byte) and writes nothing to stdout or a device; done
// while fill runs, the temp file is removed instead of renamed, and
// what is written in place (stdout, a device) stops at fill's next
// write. Either way the error is an InterruptedError.
func Write(ctx context.Context, path string, mode os.FileMode, stdout io.Writer, fill func(io.Writer) error) error {
	if ctx.Err() != nil {
		return &InterruptedError{Path: path, Cause: context.Cause(ctx)}
	}
	stopped := func() error {
		if ctx.Err() != nil {
			return &InterruptedError{Path: path, Cause: context.Cause(ctx)}
		}
		return nil
	}
	var sw *stopWriter
	inPlace, err := write(path, mode, stdout, stopped, func(w io.Writer) error {
		sw = &stopWriter{ctx: ctx, w: w}
		rw := redact.NewWriter(sw)
		err := fill(rw)
		if err == nil {
			err = rw.Flush()
		}
		if ctx.Err() != nil {
			return &InterruptedError{Path: path, Cause: context.Cause(ctx)}
		}
		return err
	})
	if ie := (*InterruptedError)(nil); errors.As(err, &ie) && inPlace && sw != nil {
		ie.Partial = sw.wrote // the temp file is removed; in place, a part may be out
	}
	return err
}

// InterruptedError is a Write the run's context stopped: the file was
// not created or replaced (Partial: a part went to stdout or a device,
// written in place).
type InterruptedError struct {
	Path    string
	Cause   error
	Partial bool
}

func (e *InterruptedError) Error() string {
	if e.Partial {
		return fmt.Sprintf("%s: %v: cut short", e.Path, e.Cause)
	}
	return fmt.Sprintf("%s: %v: not written", e.Path, e.Cause)
}

func (e *InterruptedError) Unwrap() error { return e.Cause }

// stopWriter refuses every write once ctx is done.
type stopWriter struct {
	ctx   context.Context
	w     io.Writer
	wrote bool
}

func (s *stopWriter) Write(p []byte) (int, error) {
	if s.ctx.Err() != nil {
		return 0, context.Cause(s.ctx)
	}
	n, err := s.w.Write(p)
	if n > 0 {
		s.wrote = true
	}
	return n, err
}

// write is Write's work; stopped, asked last before a rename, keeps
// the old file when the run stopped meanwhile. inPlace: fill wrote to
// stdout or into a device, not to a temp file.
func write(path string, mode os.FileMode, stdout io.Writer, stopped func() error, fill func(io.Writer) error) (inPlace bool, err error) {
	if path == "-" {
		return true, fill(stdout)
	}
	if path == "" {
		return false, errors.New("empty output path")
	}
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		// Write where the link points, and keep the link.
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return false, fmt.Errorf("%s: a symlink to nothing (%v)", path, err)
		}
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return false, fmt.Errorf("%s: is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		return true, writeInPlace(path, target, fill)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("%s: %v", path, err)
	}
	if err != nil {
		st = nil // a new file
	}
	return false, writeAtomic(path, target, mode, st, fill, stopped)
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

// writeAtomic writes a new file beside target and renames it over
// target. The directory is opened once and every step after names its
// file relative to it, following no symlink (Dir): a directory swapped
// for a link while fill runs (minutes, for a report) does not move the
// write elsewhere, and the target is checked, by the kernel, to be a
// regular file or nothing right before the rename.
func writeAtomic(path, target string, mode os.FileMode, old os.FileInfo, fill func(io.Writer) error, stopped func() error) error {
	dirPath, base := filepath.Split(target)
	if dirPath == "" {
		dirPath = "."
	}
	dir, err := OpenDir(dirPath)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	defer dir.Close()
	var f *os.File
	var tmp string
	for try := 0; try < 10; try++ {
		var rnd [8]byte
		rand.Read(rnd[:])
		// O_EXCL: a planted file or symlink at the temp name is never followed.
		tmp = "." + base + "." + hex.EncodeToString(rnd[:]) + ".tmp"
		f, err = dir.Open(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, os.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			dir.Remove(tmp)
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
	if kind, err := dir.Lstat(base); err == nil && kind != 0 {
		dir.Remove(tmp)
		ok = true
		return fmt.Errorf("%s: changed into a non-regular file while writing; not replaced", path)
	}
	if stopped != nil {
		if err := stopped(); err != nil {
			return err // the deferred cleanup removes the temp file
		}
	}
	if err := dir.Rename(tmp, base); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	ok = true
	return dir.Sync()
}
