package redact

import (
	"bytes"
	"io"
)

// block is how much a Writer gathers before it scrubs: scanning per
// write would cost a pass per small Fprintf.
const block = 64 << 10

// maxLine bounds what a Writer holds back waiting for whitespace (below).
const maxLine = 1 << 20

// Writer scrubs everything written through it, also a value split across
// two writes: it holds back the last len(longest value)-1 bytes, which
// may begin one. URL user-info never spans whitespace, so scrubbed text
// is passed on up to its last whitespace (lines up to 1 MiB). Call Flush
// or Close at the end.
type Writer struct {
	w       io.Writer
	raw     []byte // not yet scrubbed
	pending []byte // registered values replaced; user-info not yet
	err     error
}

// NewWriter returns a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (z *Writer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	z.raw = append(z.raw, p...)
	if len(z.raw) >= block {
		z.drain(false)
	}
	return len(p), z.err
}

// Flush scrubs and writes everything held back.
func (z *Writer) Flush() error {
	if z.err == nil {
		z.drain(true)
	}
	return z.err
}

// Close flushes; it does not close the underlying writer.
func (z *Writer) Close() error { return z.Flush() }

func (z *Writer) drain(final bool) {
	ix := snapshot()
	stop := len(z.raw)
	if !final && ix.maxLen > 1 {
		stop -= ix.maxLen - 1
	}
	if stop > 0 {
		var at int
		z.pending, at = ix.replace(z.pending, z.raw, stop)
		z.raw = append(z.raw[:0], z.raw[at:]...)
	}
	cut := len(z.pending)
	if !final && cut < maxLine {
		cut = bytes.LastIndexAny(z.pending, " \t\r\n") + 1
	}
	if cut == 0 {
		return
	}
	if _, err := z.w.Write(scrubUserinfo(z.pending[:cut])); err != nil {
		z.err = err
		return
	}
	z.pending = append(z.pending[:0], z.pending[cut:]...)
}
