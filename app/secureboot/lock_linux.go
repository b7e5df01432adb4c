//go:build linux

package secureboot

import (
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
