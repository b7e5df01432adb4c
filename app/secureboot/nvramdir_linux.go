//go:build linux

package secureboot

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// nvramDir is the directory of a guest's variable file, resolved and
// opened once, when the file is planned. Every later step (re-read,
// backup, temporary file, rename, read-back, restore) names its file
// relative to this descriptor and follows no symlink: a directory or
// file swapped for a link after the plan makes the step fail, never
// write elsewhere on the host. (The NVRAM directory's parent belongs to
// the QEMU user on Debian: whoever can write there can swap paths.)
type nvramDir struct {
	f    *os.File
	path string // for messages only, never opened again
}

// openNVRAMDir opens path as a directory, its last component not a
// symlink.
func openNVRAMDir(path string) (*nvramDir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &nvramDir{f: os.NewFile(uintptr(fd), path), path: path}, nil
}

func (d *nvramDir) close() {
	if d != nil && d.f != nil {
		d.f.Close()
	}
}

// open opens name in the directory: openat2 resolving beneath it with
// no symlink anywhere where the kernel has it (5.6), else openat with
// O_NOFOLLOW on a name that has no slash.
func (d *nvramDir) open(name string, flags int, mode uint32) (*os.File, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return nil, fmt.Errorf("%q is not a file name", name)
	}
	flags |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	how := unix.OpenHow{Flags: uint64(flags), Mode: uint64(mode),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(int(d.f.Fd()), name, &how)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) { // no openat2, or a seccomp filter refusing it
		fd, err = unix.Openat(int(d.f.Fd()), name, flags, mode)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.path + "/" + name, Err: err}
	}
	return os.NewFile(uintptr(fd), d.path+"/"+name), nil
}

// rename replaces to with from, both in the directory.
func (d *nvramDir) rename(from, to string) error {
	if err := unix.Renameat(int(d.f.Fd()), from, int(d.f.Fd()), to); err != nil {
		return &os.LinkError{Op: "rename", Old: d.path + "/" + from, New: d.path + "/" + to, Err: err}
	}
	return nil
}

func (d *nvramDir) remove(name string) { unix.Unlinkat(int(d.f.Fd()), name, 0) }

// sync makes the directory's entries durable (a rename, a new backup).
func (d *nvramDir) sync() error { return d.f.Sync() }

// holdExclusive takes, on f (opened for writing), an exclusive open file
// description lock over the whole file, which conflicts with QEMU's own
// image locks (so a guest starting now fails to take its lock), and an
// exclusive flock(2), which conflicts with tools that lock that way. It
// fails at once, taking neither, when another process holds either. The
// locks go with f's close.
func holdExclusive(f *os.File) error {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		return fmt.Errorf("a lock is held on it (%v)", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lk.Type = unix.F_UNLCK
		unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
		return fmt.Errorf("a flock(2) lock is held on it (%v)", err)
	}
	return nil
}

// sameFile says whether a and b are one inode.
func sameFile(a, b os.FileInfo) bool { return os.SameFile(a, b) }
