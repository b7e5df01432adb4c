//go:build linux

package secureboot

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// inUse says whether another process holds a lock on f: an fcntl or
// open file description lock of any kind (F_OFD_GETLK reports both), or
// a flock(2) lock (tried exclusively and at once, then let go). QEMU
// locks every image it opens, the firmware's flash included (image
// locking, on by default since QEMU 2.10), so a running guest's variable
// file shows locked even where libvirt was not asked.
func inUse(f *os.File) (bool, error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false, err
	}
	if lk.Type != unix.F_UNLCK {
		return true, nil
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if err == unix.EWOULDBLOCK {
			return true, nil
		}
		return false, err
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false, nil
}

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
