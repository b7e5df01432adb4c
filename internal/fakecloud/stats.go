package fakecloud

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Stats is what the fake saw since the last Reset: what a bench reports
// and what a test counts requests by.
type Stats struct {
	Requests    int            // every request, expected or not
	ByRoute     map[string]int // by stub, method and declared path: "GET /compute/v2.1/servers/detail"
	Connections int            // TCP connections accepted
	MaxInFlight int            // most requests served at once
	// Busy is the requests' time in the fake, summed: Busy over a run's
	// wall time is how many requests were in flight on average.
	Busy time.Duration
	// PushedBack counts the requests answered 429 for Capacity.
	PushedBack int
	// Unexpected is what the fake failed a test for, or would have
	// (Serve): a request no stub matches, a bad token, a handler's
	// Errorf, Verify's unused stubs (the first 100; NUnexpected counts all).
	Unexpected  []string
	NUnexpected int
	// ConnFirstRoute counts connections by the route of their first
	// request: which calls open new connections.
	ConnFirstRoute map[string]int
}

// connKey carries a connection's "first request seen" flag.
type connKey struct{}

type counters struct {
	cmu               sync.Mutex
	byRoute, firstOn  map[string]int
	unexp             []string
	nUnexp            int
	conns             atomic.Int64
	inflight, maxInfl atomic.Int64
	busy, pushedBack  atomic.Int64
}

func (k *counters) reset() {
	k.cmu.Lock()
	k.byRoute, k.firstOn, k.unexp, k.nUnexp = map[string]int{}, map[string]int{}, nil, 0
	k.cmu.Unlock()
	k.conns.Store(0)
	k.maxInfl.Store(0)
	k.busy.Store(0)
	k.pushedBack.Store(0)
}

// Reset zeroes the counters and the trace (between a bench's runs, or
// after a test's login). Idle keep-alive connections of a finished
// client are closed by the client's exit. Stubs keep what they were used
// for.
func (c *Cloud) Reset() {
	c.counters.reset()
	c.trace.reset()
}

// begin counts a request in flight until done is called with its time
// in the fake; n is the requests in flight with this one.
func (k *counters) begin() (done func(time.Duration), n int64) {
	n = k.inflight.Add(1)
	for {
		m := k.maxInfl.Load()
		if n <= m || k.maxInfl.CompareAndSwap(m, n) {
			break
		}
	}
	return func(d time.Duration) {
		k.inflight.Add(-1)
		k.busy.Add(int64(d))
	}, n
}

func (k *counters) count(r *http.Request, route string) {
	k.cmu.Lock()
	defer k.cmu.Unlock()
	k.byRoute[route]++
	if seen, _ := r.Context().Value(connKey{}).(*atomic.Bool); seen != nil && !seen.Swap(true) {
		k.firstOn[route]++
	}
}

func (k *counters) unexpected(line string) {
	k.cmu.Lock()
	defer k.cmu.Unlock()
	k.nUnexp++
	if len(k.unexp) < 100 {
		k.unexp = append(k.unexp, line)
	}
}

// Stats returns a copy of the counters.
func (c *Cloud) Stats() Stats {
	k := &c.counters
	k.cmu.Lock()
	defer k.cmu.Unlock()
	s := Stats{ByRoute: map[string]int{}, ConnFirstRoute: map[string]int{}, Connections: int(k.conns.Load()),
		MaxInFlight: int(k.maxInfl.Load()), Busy: time.Duration(k.busy.Load()), PushedBack: int(k.pushedBack.Load()), Unexpected: append([]string(nil), k.unexp...), NUnexpected: k.nUnexp}
	for r, n := range k.byRoute {
		s.ByRoute[r] = n
		s.Requests += n
	}
	for r, n := range k.firstOn {
		s.ConnFirstRoute[r] = n
	}
	return s
}

// Routes lists ByRoute sorted by count, highest first.
func (s Stats) Routes() []string { return sorted(s.ByRoute) }

// ConnRoutes lists ConnFirstRoute the same way.
func (s Stats) ConnRoutes() []string { return sorted(s.ConnFirstRoute) }

func sorted(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%6d %s", m[k], k)
	}
	return keys
}
