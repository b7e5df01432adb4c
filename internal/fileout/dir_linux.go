package fileout

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Dir is a directory resolved and opened once. Every later step names
// its file relative to it and follows no symlink, so a path swapped for a
// link between two steps (whoever can write the directory can swap it)
// makes the step fail, never land elsewhere: the kernel resolves the
// name, once, beneath this descriptor.
type Dir struct {
	f    *os.File
	path string // for messages only, never opened again
}

// OpenDir opens path as a directory, its last component not a symlink
// (the caller resolves the links it means to follow first).
func OpenDir(path string) (*Dir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{f: os.NewFile(uintptr(fd), path), path: path}, nil
}

// Close closes the directory (a nil Dir is fine).
func (d *Dir) Close() {
	if d != nil && d.f != nil {
		d.f.Close()
	}
}

// Path is the directory's path as it was opened, for messages.
func (d *Dir) Path() string { return d.path }

func (d *Dir) name(name string) string { return strings.TrimSuffix(d.path, "/") + "/" + name }

func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return fmt.Errorf("%q is not a file name", name)
	}
	return nil
}

// Open opens name in the directory: openat2 resolving beneath it with no
// symlink anywhere where the kernel has it (Linux 5.6), else openat with
// O_NOFOLLOW on a name that has no slash.
func (d *Dir) Open(name string, flags int, mode os.FileMode) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	flags |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	how := unix.OpenHow{Flags: uint64(flags), Mode: uint64(mode.Perm()),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(int(d.f.Fd()), name, &how)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) { // no openat2, or a seccomp filter refusing it
		fd, err = unix.Openat(int(d.f.Fd()), name, flags, uint32(mode.Perm()))
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.name(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.name(name)), nil
}

// Lstat is the entry name itself (a symlink is not followed).
func (d *Dir) Lstat(name string) (os.FileMode, error) {
	if err := checkName(name); err != nil {
		return 0, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(int(d.f.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &os.PathError{Op: "lstat", Path: d.name(name), Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0, nil
	case unix.S_IFDIR:
		return os.ModeDir, nil
	case unix.S_IFLNK:
		return os.ModeSymlink, nil
	}
	return os.ModeIrregular, nil
}

// Rename replaces to with from, both in the directory.
func (d *Dir) Rename(from, to string) error {
	if err := checkName(from); err != nil {
		return err
	}
	if err := checkName(to); err != nil {
		return err
	}
	if err := unix.Renameat(int(d.f.Fd()), from, int(d.f.Fd()), to); err != nil {
		return &os.LinkError{Op: "rename", Old: d.name(from), New: d.name(to), Err: err}
	}
	return nil
}

// Remove removes the file name (not a directory).
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	return unix.Unlinkat(int(d.f.Fd()), name, 0)
}

// Sync makes the directory's entries durable (a rename, a new file).
func (d *Dir) Sync() error {
	if err := d.f.Sync(); err != nil {
		return fmt.Errorf("%s: %v", d.path, err)
	}
	return nil
}
