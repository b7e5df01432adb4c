package parallel

import (
	"context"
	"sync"
)

// Slots bounds the requests in flight across everything a run does: one
// pool, so --concurrency N means N requests on the wire whenever N are
// ready, however the work above it is split (projects, pages, lookups).
//
// The bound adapts, AIMD-like, as TCP's congestion window does: a
// pushback (429 Too Many Requests, 503 Service Unavailable) halves it,
// at most once per window of requests already on the wire when it came
// (a burst of refusals of the same window is one signal, not eight);
// each answer that is no pushback adds 1/limit, so a full window of them
// adds one slot. It never exceeds the maximum the caller set, nor falls
// below one.
type Slots struct {
	mu    sync.Mutex
	wake  chan struct{} // closed and replaced when a slot frees or the limit grows
	max   int
	limit float64
	inUse int
	// epoch counts decreases; a request remembers the epoch it started
	// in, and only a pushback of the current epoch decreases again.
	epoch int
	stats SlotStats
}

// SlotStats is what the server made of the pool.
type SlotStats struct {
	// PushBacks counts the answers that asked to slow down (429, 503);
	// Decreases how often the limit was cut for them.
	PushBacks, Decreases int
	// Lowest is the lowest the limit fell to (the maximum if never cut).
	Lowest int
}

// NewSlots returns a pool of n slots (n < 1: DefaultLimit).
func NewSlots(n int) *Slots {
	if n < 1 {
		n = DefaultLimit
	}
	return &Slots{wake: make(chan struct{}), max: n, limit: float64(n), stats: SlotStats{Lowest: n}}
}

// SetMax sets the bound (before the first request: a command's own
// --concurrency); the adaptive limit starts there.
func (s *Slots) SetMax(n int) {
	if n < 1 {
		n = DefaultLimit
	}
	s.mu.Lock()
	s.max, s.limit, s.stats.Lowest = n, float64(n), n
	s.broadcast()
	s.mu.Unlock()
}

// Max is the bound the caller set.
func (s *Slots) Max() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max
}

// Ticket is one request's slot, returned by Done.
type Ticket struct {
	s     *Slots
	epoch int
}

// Acquire waits for a slot, or for ctx.
func (s *Slots) Acquire(ctx context.Context) (Ticket, error) {
	for {
		s.mu.Lock()
		if s.inUse < int(s.limit) {
			s.inUse++
			t := Ticket{s: s, epoch: s.epoch}
			s.mu.Unlock()
			return t, nil
		}
		wake := s.wake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return Ticket{}, ctx.Err()
		}
	}
}

// Done frees the slot; pushedBack says the answer asked to slow down.
func (t Ticket) Done(pushedBack bool) {
	s := t.s
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inUse--
	switch {
	case pushedBack:
		s.stats.PushBacks++
		if t.epoch == s.epoch {
			s.epoch++
			s.stats.Decreases++
			s.limit = max(1, s.limit/2)
			s.stats.Lowest = min(s.stats.Lowest, int(s.limit))
		}
	case s.limit < float64(s.max):
		s.limit = min(float64(s.max), s.limit+1/s.limit)
	}
	s.broadcast()
}

// broadcast wakes every waiter (they recheck under the lock). Called
// with mu held.
func (s *Slots) broadcast() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// Stats returns the counters so far.
func (s *Slots) Stats() SlotStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}
