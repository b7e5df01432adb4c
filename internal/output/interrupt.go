package output

import (
	"context"
	"fmt"
)

// A run that did not finish publishes nothing. Options.Context is the
// run's: once it is done (an interrupt), Write writes nothing at all,
// and a list it is already writing an element at a time (a Streamer's,
// a Table's Walk) stops before the next element. What a cut stream
// leaves on the writer is never a whole document:
//
//   - JSON: the elements written whole, then nothing: no closing
//     bracket or brace, so no JSON parser accepts it;
//   - YAML: the elements written whole, then cutYAML, a line no YAML
//     parser accepts (a YAML stream cut at an element would otherwise
//     parse as a shorter whole document);
//   - a table: the rows written whole, without the bottom border and
//     the footer;
//   - value and CSV: the rows written whole (line formats, which cannot
//     show a cut: the exit status and the caller's line say it).
//
// The stream is cut, not buffered: a streamed audit's document is too
// large to hold (the reason it streams).

// cutYAML ends a YAML stream cut short: an unterminated double-quoted
// scalar, a parse error for every YAML parser, which says why to a
// reader.
const cutYAML = "\"vtpmctl: interrupted here; this document is incomplete\n"

// InterruptedError is a Write the run's context stopped: before the
// first byte (Partial false: nothing was written), or while it wrote a
// list an element at a time (Partial: the output stops after Elements
// whole elements and is no whole document).
type InterruptedError struct {
	Cause    error  // the context's cause (context.Cause)
	Format   string // the format being written
	Partial  bool
	Elements int
}

func (e *InterruptedError) Error() string {
	if !e.Partial {
		return fmt.Sprintf("%v: nothing written", e.Cause)
	}
	return fmt.Sprintf("%v: the %s output stops after %d element(s), incomplete", e.Cause, e.Format, e.Elements)
}

func (e *InterruptedError) Unwrap() error { return e.Cause }

// stopper is the run's question "stopped?": the cause once its context
// is done, else nil. A nil stopper never stops.
type stopper func() error

func (o Options) stopper() stopper {
	ctx := o.Context
	if ctx == nil {
		return nil
	}
	return func() error {
		if ctx.Err() == nil {
			return nil
		}
		return context.Cause(ctx)
	}
}

func (s stopper) stopped() error {
	if s == nil {
		return nil
	}
	return s()
}

// cut is the error of a stream stopped after n whole elements.
func cut(cause error, n int) error {
	return &InterruptedError{Cause: cause, Partial: true, Elements: n}
}
