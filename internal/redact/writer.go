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
// two writes: it holds back the last bytes that may begin one (and what a
// password's match reads after it), and keeps the few before the next
// byte it scrubs (what the match reads before it). URL user-info never
// spans whitespace, so scrubbed text is passed on up to its last
// whitespace (lines up to 1 MiB). Passwords are removed as in a document
// (rule inDocument). Call Flush or Close at the end.
type Writer struct {
	w       io.Writer
	mark    string
	raw     []byte // [:seen] scrubbed already, kept as context; the rest not yet
	seen    int
	pending []byte // registered values replaced; user-info not yet
	err     error
}

// NewWriter returns a Writer onto w that writes Mark for each value.
func NewWriter(w io.Writer) *Writer { return NewMarkWriter(w, Mark) }

// NewMarkWriter returns a Writer that writes mark for each value: the
// renderer of a format where Mark is markup (HTML, markdown) scrubs its
// own output with EscapedMark, since only it knows the format; a Writer
// further out then finds nothing left to mark.
func NewMarkWriter(w io.Writer, mark string) *Writer { return &Writer{w: w, mark: mark} }

func (z *Writer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	z.raw = append(z.raw, p...)
	if len(z.raw)-z.seen >= block {
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
	if !final {
		stop -= ix.holdBack()
	}
	if stop > z.seen {
		var at int
		z.pending, at = ix.replace(z.pending, z.raw, z.seen, stop, inDocument, z.mark)
		keep := min(at, lookbehind)
		z.raw = append(z.raw[:0], z.raw[at-keep:]...)
		z.seen = keep
	}
	cut := len(z.pending)
	if !final && cut < maxLine {
		cut = bytes.LastIndexAny(z.pending, " \t\r\n") + 1
	}
	if cut == 0 {
		return
	}
	if _, err := z.w.Write(scrubUserinfo(z.pending[:cut], z.mark)); err != nil {
		z.err = err
		return
	}
	z.pending = append(z.pending[:0], z.pending[cut:]...)
}
