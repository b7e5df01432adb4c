// Package progresstest records the secrets.Progress calls a service
// passes down and checks the rules the reporter promises: phases one
// after another, Done growing from 0 and never past a known Total, each
// counted phase ending at its Total, one call at a time. For the tests of
// the services that carry a Progress (report, plans); package secrets'
// own in-package tests keep their copy, as they cannot import this.
package progresstest

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/secrets"
)

// Log records progress calls; its Report is the request's Progress.
type Log struct {
	mu      sync.Mutex
	calls   []secrets.Progress
	inside  atomic.Int32
	overlap atomic.Bool
}

// Report records one call, and whether it overlapped another.
func (l *Log) Report(p secrets.Progress) {
	if l.inside.Add(1) > 1 {
		l.overlap.Store(true)
	}
	defer l.inside.Add(-1)
	l.mu.Lock()
	l.calls = append(l.calls, p)
	l.mu.Unlock()
}

// Calls are the calls recorded.
func (l *Log) Calls() []secrets.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]secrets.Progress(nil), l.calls...)
}

// Phases checks every call against the rules and returns the phases in
// the order they ran.
func (l *Log) Phases(t testing.TB) []secrets.Phase {
	t.Helper()
	if l.overlap.Load() {
		t.Error("two progress calls at once")
	}
	var order []secrets.Phase
	last := map[secrets.Phase]secrets.Progress{}
	for i, p := range l.Calls() {
		prev, seen := last[p.Phase]
		switch {
		case !seen:
			order = append(order, p.Phase)
			if p.Done != 0 {
				t.Errorf("call %d: %s starts at %d", i, p.Phase, p.Done)
			}
		case order[len(order)-1] != p.Phase:
			t.Errorf("call %d: %s again after %s", i, p.Phase, order[len(order)-1])
		case p.Done < prev.Done || p.Total != prev.Total:
			t.Errorf("call %d: %s went from %d/%d to %d/%d", i, p.Phase, prev.Done, prev.Total, p.Done, p.Total)
		}
		if p.Total > 0 && p.Done > p.Total {
			t.Errorf("call %d: %s at %d of %d", i, p.Phase, p.Done, p.Total)
		}
		last[p.Phase] = p
	}
	for _, ph := range order {
		if p := last[ph]; p.Total > 0 && p.Done != p.Total {
			t.Errorf("%s ended at %d of %d", ph, p.Done, p.Total)
		}
	}
	return order
}
