package hostcheck

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A --root is a mounted host, not ours: a symlink in it means what it
// would mean on that host (resolved below the root, as a chroot would),
// never a path on the auditing machine; and files are read only when they
// are regular and not huge (a FIFO would hang, /dev/zero never ends).

// MaxConfigBytes caps one file read below the root.
var MaxConfigBytes int64 = 16 << 20

const maxSymlinks = 40

// resolve maps p, a path on the audited host, to a path on this machine
// with every symlink resolved inside root. root "" or "/" is the live
// system, where paths mean themselves.
func resolve(root, p string) (string, error) {
	if root == "" || root == "/" {
		return p, nil
	}
	root = filepath.Clean(root)
	var done string // resolved so far, relative to root, always clean
	rest := strings.Split(filepath.ToSlash(p), "/")
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = parentOf(done)
			continue
		}
		next := done + "/" + c
		st, err := os.Lstat(root + next)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				// the rest is joined as is: the caller's open or stat fails
				return root + filepath.Clean(next+"/"+strings.Join(rest, "/")), nil
			}
			return "", err
		}
		if st.Mode()&os.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > maxSymlinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links below %s", p, root)
		}
		target, err := os.Readlink(root + next)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(target, "/") {
			done = ""
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	if done == "" {
		return root, nil
	}
	return root + done, nil
}

func parentOf(p string) string {
	if i := strings.LastIndex(p, "/"); i > 0 {
		return p[:i]
	}
	return "" // ".." at the root stays at the root
}

// readFile reads a regular file of the audited host, at most
// MaxConfigBytes; anything else is a clear error naming the path.
func readFile(root, p string) ([]byte, error) {
	rp, err := resolve(root, p)
	if err != nil {
		return nil, err
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW:
	// the path was resolved, a symlink appearing now is refused.
	f, err := os.OpenFile(rp, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); not read", rp, st.Mode().Type())
	}
	if st.Size() > MaxConfigBytes {
		return nil, fmt.Errorf("%s is %d MiB, more than a config file can be (limit %d MiB); not read", rp, st.Size()>>20, MaxConfigBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > MaxConfigBytes {
		return nil, fmt.Errorf("%s grew past %d MiB while read; not read", rp, MaxConfigBytes>>20)
	}
	return data, nil
}

// statIn stats a path of the audited host (symlinks resolved inside root).
func statIn(root, p string) (os.FileInfo, error) {
	rp, err := resolve(root, p)
	if err != nil {
		return nil, err
	}
	return os.Stat(rp)
}
