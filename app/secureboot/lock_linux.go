//go:build linux

package secureboot

import (
	"os"
	"syscall"
)

// fOFDGetlk is F_OFD_GETLK (Linux 3.15): it reports a conflicting lock
// of any kind, open file description or POSIX, held by anyone.
const fOFDGetlk = 36

// inUse says whether another process holds a lock on the file. QEMU
// locks every image it opens, the firmware's flash included (image
// locking, on by default since QEMU 2.10), so a running guest's variable
// file shows locked even where libvirt was not asked.
func inUse(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK}
	if err := syscall.FcntlFlock(f.Fd(), fOFDGetlk, &lk); err != nil {
		return false, err
	}
	return lk.Type != syscall.F_UNLCK, nil
}
