package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// A run that did not finish publishes nothing. SIGINT and SIGTERM end
// the run's context with an interruption as its cause, which says the
// signal and how far the run was when it came (the step its progress
// last reported). Whether the run finished is decided where it
// publishes: output.Write and fileout.Write write nothing once the
// context is done (Options.Context, and the ctx every file write takes),
// so no command can publish a result gathered under a cancelled context.
// Stderr goes quiet at the signal (a cancelled read's warnings are no
// news), and Main says one line: what was interrupted, by which signal,
// how far it got, and what was written (for a write command, which
// writes were made). The exit status is 128 + the signal: 130 for
// SIGINT, 143 for SIGTERM. A second signal ends the process at once.

// interruption is the cause of a run's context ended by a signal.
type interruption struct {
	sig  syscall.Signal
	step string // the run's step when the signal came ("" unknown)
}

func (i *interruption) Error() string { return "interrupted (" + signalName(i.sig) + ")" }

// exitCode is the shell's status for a process a signal ended.
func (i *interruption) exitCode() int { return 128 + int(i.sig) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// interruptOf is the interruption that ended ctx, if a signal did.
func interruptOf(ctx context.Context) (*interruption, bool) {
	var in *interruption
	ok := ctx.Err() != nil && errors.As(context.Cause(ctx), &in)
	return in, ok
}

// runState is what the run is doing, for the interruption's line: the
// command (its words below vtpmctl) and the step its progress last
// reported. It lives in the run's context (withRun).
type runState struct {
	mu      sync.Mutex
	command string
	step    string
}

type runKey struct{}

func withRun(ctx context.Context, r *runState) context.Context {
	return context.WithValue(ctx, runKey{}, r)
}

// runOf is ctx's run (nil: none; its methods then do nothing).
func runOf(ctx context.Context) *runState {
	r, _ := ctx.Value(runKey{}).(*runState)
	return r
}

// note records the step the run is on ("auditing secrets and ACLs:
// 3/20 projects").
func (r *runState) note(step string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.step = step
	r.mu.Unlock()
}

func (r *runState) start(command string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.command, r.step = command, ""
	r.mu.Unlock()
}

func (r *runState) now() (command, step string) {
	if r == nil {
		return "", ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.command, r.step
}

// interrupted is the cause a signal gives the run's context: the signal
// and the step the run was on when it came (not when the command got
// to return: work cancelled by it may count as done meanwhile).
func (r *runState) interrupted(sig syscall.Signal) *interruption {
	_, step := r.now()
	return &interruption{sig: sig, step: step}
}

// notifySignals is ctx ended by the first SIGINT or SIGTERM, with an
// interruption as its cause; a second one writes a line to errw and
// calls exit (os.Exit) with 128 + its number at once, as a shell's
// second Ctrl-C does. stop ends the watch.
func notifySignals(ctx context.Context, errw io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	run := runOf(ctx)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		first := true
		for {
			select {
			case s := <-ch:
				sig, _ := s.(syscall.Signal)
				if first {
					first = false
					cancel(run.interrupted(sig))
					continue
				}
				fmt.Fprintf(errw, "vtpmctl: %s again: stopped at once (a write in flight may or may not have been made)\n", signalName(sig))
				exit(128 + int(sig))
				return
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// quietWriter drops what is written once a signal ended the run: the
// warnings of reads it cancelled are not news, and the interruption's
// line is the one line said (Main writes it under this writer).
type quietWriter struct {
	ctx context.Context
	w   io.Writer
}

func (q *quietWriter) Write(p []byte) (int, error) {
	if _, ok := interruptOf(q.ctx); ok {
		return len(p), nil
	}
	return q.w.Write(p)
}

// rawWriter is the writer under quietWriter and output.TerminalWriter:
// the terminal itself, for a progress line's escape sequences.
func rawWriter(w io.Writer) io.Writer {
	if q, ok := w.(*quietWriter); ok {
		w = q.w
	}
	return output.Raw(w)
}

// stillPublishing is what output.Write asks first, for a result written
// without it (the cleanup plan's script): nil while the run may publish,
// else the output.InterruptedError that says nothing was written.
func stillPublishing(o output.Options) error {
	if o.Context == nil || o.Context.Err() == nil {
		return nil
	}
	return &output.InterruptedError{Cause: context.Cause(o.Context), Format: "script"}
}

// interruptedError is a run a signal stopped; err is what its command
// returned after it.
type interruptedError struct {
	in      *interruption
	command string
	err     error
}

func (e *interruptedError) Error() string { return e.line() }
func (e *interruptedError) Unwrap() error { return e.err }

// line is the one line an interrupted run says: what was interrupted,
// how, where it was, and what it wrote.
func (e *interruptedError) line() string {
	var b strings.Builder
	if e.command != "" {
		b.WriteString(e.command + " ")
	}
	b.WriteString(e.in.Error())
	if e.in.step != "" {
		b.WriteString(" while " + e.in.step)
	}
	b.WriteString("; " + writtenBefore(e.err))
	return b.String()
}

// writtenBefore says what the run wrote before it stopped, from the
// error its command returned.
func writtenBefore(err error) string {
	var made *writesMade
	var oe *output.InterruptedError
	var fe *fileout.InterruptedError
	switch {
	case errors.As(err, &made):
		return made.said + "; no result printed"
	case errors.As(err, &oe) && oe.Partial:
		return fmt.Sprintf("the %s on stdout stops after %s whole element(s) and is incomplete%s", formatName(oe.Format), thousands(oe.Elements), cutMark(oe.Format))
	case errors.As(err, &fe) && fe.Partial:
		return fmt.Sprintf("%s got part of its output only, and is incomplete", shownPath(fe.Path))
	case errors.As(err, &fe) && fe.Path != "-":
		if _, serr := os.Lstat(fe.Path); serr == nil {
			return fmt.Sprintf("%s not written: the file there is left as it was", shownPath(fe.Path))
		}
		return fmt.Sprintf("%s not written", shownPath(fe.Path))
	}
	return "nothing written"
}

func formatName(f string) string {
	switch f {
	case "json", "yaml", "csv":
		return strings.ToUpper(f)
	case "", "table":
		return "table"
	}
	return f + " output"
}

// cutMark says how a cut stream shows it is no whole document
// (output's interrupt.go).
func cutMark(format string) string {
	switch format {
	case "json":
		return " (no closing bracket)"
	case "yaml":
		return " (its last line, which says so, is no YAML)"
	case "", "table":
		return " (no bottom border)"
	}
	return ""
}

func shownPath(p string) string {
	if p == "-" {
		return "stdout"
	}
	return shownName(p)
}

// writesMade is a write command's account, for the interruption's line,
// of the writes it made before a signal stopped it; its result is not
// printed.
type writesMade struct {
	said string
	err  error
}

func (e *writesMade) Error() string { return e.err.Error() }
func (e *writesMade) Unwrap() error { return e.err }

// withWritesMade turns a result the run did not publish (err, from
// output.Write) into an account of the writes made: said() words them.
// Any other error passes unchanged.
func withWritesMade(err error, said func() string) error {
	var oe *output.InterruptedError
	if !errors.As(err, &oe) {
		return err
	}
	if s := said(); s != "" {
		return &writesMade{said: s, err: err}
	}
	return err
}

// maxNamed is how many objects a list in the line names before "and N
// more".
const maxNamed = 5

// named is "a, b, c and 4 more".
func named(names []string) string {
	if len(names) <= maxNamed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamed], ", "), len(names)-maxNamed)
}

// shownNames quotes each name that holds a control character.
func shownNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = shownName(n)
	}
	return out
}

// madeList words a write command's outcome: done of total done (which),
// and the rest, "not confirmed" where a write in flight when the signal
// came may have been made (a rerun converges), or restWord.
func madeList(verb string, done, rest []string, restWord string) string {
	total := len(done) + len(rest)
	if total == 0 {
		return ""
	}
	s := fmt.Sprintf("%d of %d %s before it stopped", len(done), total, verb)
	if len(done) > 0 {
		s += " (" + named(shownNames(done)) + ")"
	}
	if len(rest) > 0 {
		s += fmt.Sprintf("; %s: %s (run it again to finish)", restWord, named(shownNames(rest)))
	}
	return s
}
