package fileout

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Replace writes data over path, an existing regular file, the way Write
// replaces one (a temp file created exclusively beside it with the
// file's owner, group and mode, synced, renamed over it, removed on any
// failure), but byte for byte: no redaction, for a binary file such as a
// guest's UEFI variable store. A symlink is followed and kept; anything
// but a regular file is refused, never written in place; the directory
// is synced after the rename so that the new name survives a crash.
func Replace(path string, data []byte) error {
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return fmt.Errorf("%s: a symlink to nothing (%v)", path, err)
		}
	}
	st, err := os.Lstat(target)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); not replaced", path, st.Mode().Type())
	}
	if err := writeAtomic(path, target, st.Mode().Perm(), st, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, nil); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(target))
}

// SyncDir makes the directory's entries durable (a rename, a new file).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("%s: %v", dir, err)
	}
	return nil
}
