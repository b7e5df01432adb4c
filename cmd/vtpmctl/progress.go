package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// withProgress shows "label: n/N" on stderr while long work runs — only
// when stderr is a terminal, never in a pipe or a log file — and tells
// the run (runState) how far it is, for an interruption's line.
func withProgress(ctx context.Context, w io.Writer, label string) context.Context {
	w = rawWriter(w) // the line draws with escape sequences of its own
	run, term := runOf(ctx), isTerminal(w)
	if !term && run == nil {
		return ctx
	}
	run.note(label)
	var mu sync.Mutex
	return parallel.WithProgress(ctx, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		run.note(fmt.Sprintf("%s: %s/%s", label, thousands(done), thousands(total)))
		if !term {
			return
		}
		fmt.Fprintf(w, "\r\033[Kvtpmctl: %s %d/%d", label, done, total)
		if done == total {
			fmt.Fprint(w, "\r\033[K")
		}
	})
}

// redrawEvery: a 2,000-secret audit reports 2,000 ACL reads; a terminal
// needs no more than ten frames a second to show them moving.
const redrawEvery = 100 * time.Millisecond

// progressLine draws an audit's progress on one terminal line. Reports
// may come from any goroutine.
type progressLine struct {
	w   io.Writer
	now func() time.Time

	mu    sync.Mutex
	phase secrets.Phase
	last  time.Time
	drawn bool
}

// newProgressLine is nil unless w is a terminal: never in a pipe or a
// log file.
func newProgressLine(w io.Writer) *progressLine {
	w = rawWriter(w) // the line draws with escape sequences of its own
	if !isTerminal(w) {
		return nil
	}
	return &progressLine{w: w, now: time.Now}
}

// report draws p when its phase is new or the last frame is
// redrawEvery old; other reports are dropped (the next frame shows them).
func (l *progressLine) report(p secrets.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now()
	if l.drawn && p.Phase == l.phase && t.Sub(l.last) < redrawEvery {
		return
	}
	l.phase, l.last, l.drawn = p.Phase, t, true
	fmt.Fprintf(l.w, "\r\033[Kvtpmctl: %s", progressText(p))
}

// clear erases the line, if one was drawn, before the result is written.
func (l *progressLine) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.drawn {
		fmt.Fprint(l.w, "\r\033[K")
		l.drawn = false
	}
}

// progressText says what a phase is doing, in the units it counts.
func progressText(p secrets.Progress) string {
	switch p.Phase {
	case secrets.PhaseServers:
		if p.Done == 0 {
			return "listing servers"
		}
		if p.Done == 1 {
			return "listing servers: 1 page"
		}
		return "listing servers: " + thousands(p.Done) + " pages"
	case secrets.PhaseSecrets:
		return "auditing secrets and ACLs: " + ofTotal(p) + " projects"
	case secrets.PhaseUsers:
		return "looking up users " + ofTotal(p)
	}
	return string(p.Phase) + " " + ofTotal(p)
}

// ofTotal is "1,234/2,000", or "1,234" when the total is not known.
func ofTotal(p secrets.Progress) string {
	if p.Total == 0 {
		return thousands(p.Done)
	}
	return thousands(p.Done) + "/" + thousands(p.Total)
}

// thousands groups n's digits by three with commas: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
