// Package infile opens the files a user names as input (plans, host
// reports, saved results, inventories) the one safe way: a regular file
// only (a FIFO would block for ever, /dev/zero would never end), opened
// without waiting for a writer, and read to a size cap.
package infile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// DefaultMax caps an input file: a 100,000-VM plan or inventory is tens
// of MiB; anything far larger is not one of ours.
const DefaultMax int64 = 256 << 20

// TooLargeError is a file over its cap.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %d MiB; not read", e.Path, e.Limit>>20)
}

// NotRegularError is a path that names a FIFO, device, socket or
// directory.
type NotRegularError struct {
	Path string
	Mode os.FileMode
}

func (e *NotRegularError) Error() string {
	kind := "not a regular file"
	switch {
	case e.Mode&os.ModeNamedPipe != 0:
		kind = "a FIFO"
	case e.Mode&os.ModeDevice != 0, e.Mode&os.ModeCharDevice != 0:
		kind = "a device"
	case e.Mode&os.ModeSocket != 0:
		kind = "a socket"
	case e.Mode.IsDir():
		kind = "a directory"
	}
	return fmt.Sprintf("%s: %s, not a regular file; not read", e.Path, kind)
}

// File is an open input file: reads stop with a *TooLargeError past the
// cap, so a file that grows while read is refused, not taken whole.
type File struct {
	f    *os.File
	left int64
	max  int64
	path string
}

// Open opens path for reading (symlinks followed, as a user expects of a
// file name) and refuses anything but a regular file of at most max bytes
// (max <= 0: DefaultMax).
func Open(path string, max int64) (*File, error) {
	if max <= 0 {
		max = DefaultMax
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	if st.Size() > max {
		f.Close()
		return nil, &TooLargeError{Path: path, Limit: max}
	}
	return &File{f: f, left: max, max: max, path: path}, nil
}

func (r *File) Read(p []byte) (int, error) {
	if r.left <= 0 {
		var one [1]byte
		if n, _ := r.f.Read(one[:]); n > 0 {
			return 0, &TooLargeError{Path: r.path, Limit: r.max}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.f.Read(p)
	r.left -= int64(n)
	return n, err
}

// Close closes the file.
func (r *File) Close() error { return r.f.Close() }

// Name is the path as given.
func (r *File) Name() string { return r.path }

// ReadFile reads a whole input file under the rules of Open.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	var tl *TooLargeError
	if errors.As(err, &tl) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return data, nil
}
