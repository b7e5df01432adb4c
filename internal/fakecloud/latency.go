package fakecloud

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Latency is how long the fake takes to answer a request of a route (its
// stub's key: "GET /compute/v2.1/servers/detail"), on top of its own
// work: a bench's stand-in for a real cloud's service time. A client
// whose wall time is set by requests in flight shows it only against a
// cloud that takes time to answer.
type Latency func(route string) time.Duration

// Span is one request's time in the fake, from arrival to the answer's
// last byte, relative to the last Reset.
type Span struct {
	Route      string
	Start, End time.Duration
	Status     int
}

// trace is the request timeline a bench asks for (Options.Trace).
type trace struct {
	mu    sync.Mutex
	on    bool
	t0    time.Time
	spans []Span
}

func (t *trace) reset() {
	t.mu.Lock()
	t.t0, t.spans = time.Now(), nil
	t.mu.Unlock()
}

func (t *trace) add(route string, start time.Time, status int) {
	if !t.on {
		return
	}
	end := time.Now()
	t.mu.Lock()
	t.spans = append(t.spans, Span{Route: route, Start: start.Sub(t.t0), End: end.Sub(t.t0), Status: status})
	t.mu.Unlock()
}

// Trace returns the requests served since the last Reset, in the order
// they finished (Options.Trace; nil without it).
func (c *Cloud) Trace() []Span {
	c.trace.mu.Lock()
	defer c.trace.mu.Unlock()
	return append([]Span(nil), c.trace.spans...)
}

// statusWriter keeps the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// pushBack answers 429 with Retry-After when more than Capacity requests
// are in flight: a cloud's rate limiter (haproxy's maxconn, a WSGI
// server's workers), what a client must slow down for.
func (c *Cloud) pushBack(w http.ResponseWriter, inFlight int64) bool {
	if c.Capacity <= 0 || inFlight <= int64(c.Capacity) {
		return false
	}
	c.counters.pushedBack.Add(1)
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(c.RetryAfter/time.Second))))
	http.Error(w, "429 Too Many Requests: the fake is at its capacity", http.StatusTooManyRequests)
	return true
}

// wait sleeps the route's latency, or until the client gives up.
func (c *Cloud) wait(r *http.Request, route string) bool {
	if c.Latency == nil {
		return true
	}
	d := c.Latency(route)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Unwrap lets http.ResponseController reach the connection (a test's
// Hijack, a Flush).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a handler's flush on.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
