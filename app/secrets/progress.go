package secrets

import "sync"

// Phase is one stage of an audit's gathering, in the order they are
// reported. The work itself overlaps (the server list, the projects'
// lists, their ACL reads and the role assignments share one pool of
// requests); a phase is what the run is waiting for.
type Phase string

const (
	// PhaseSecrets: projects done (their secret list and every ACL of
	// it read), of the projects audited. The server list and the role
	// assignments are read meanwhile.
	PhaseSecrets Phase = "secrets"
	// PhaseServers: server list pages read (Total 0: Nova does not say
	// how many pages there are), reported only when the list outlasts
	// the projects. Absent when the request brings the Inventory.
	PhaseServers Phase = "servers"
	// PhaseUsers: users looked up (one list may serve many), of the
	// distinct owners and creators.
	PhaseUsers Phase = "users"
)

// Progress is how far one phase is: Done of Total (0: not known). Within
// a phase Done only grows, never past a known Total, and a phase with a
// known Total ends reported at Done == Total. A phase with nothing to do
// (no secret to read an ACL of) is not reported.
type Progress struct {
	Phase       Phase
	Done, Total int
}

// reporter hands a caller's Progress func one report at a time, in
// order, from however many goroutines finish work: the caller needs no
// lock of its own. A nil reporter, or one without a func, reports
// nothing.
type reporter struct {
	mu  sync.Mutex
	f   func(Progress)
	cur Progress
}

func newReporter(f func(Progress)) *reporter {
	if f == nil {
		return nil
	}
	return &reporter{f: f}
}

// open begins a phase whose total is not known.
func (r *reporter) open(ph Phase) { r.start(ph, 0) }

// count begins a phase of total things to do; with none it is not
// reported at all (0 would read as "not known").
func (r *reporter) count(ph Phase, total int) {
	if total > 0 {
		r.start(ph, total)
	}
}

func (r *reporter) start(ph Phase, total int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur = Progress{Phase: ph, Total: total}
	r.f(r.cur)
}

// add counts n more done in the current phase.
func (r *reporter) add(n int) {
	if r == nil || n <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur.Done += n
	r.f(r.cur)
}

// one is add(1), as a func for the code that counts requests.
func (r *reporter) one() { r.add(1) }
