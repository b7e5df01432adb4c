package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// A Stub is a declared route and its answer. As with cli/cli's httpmock,
// a stub must be used: one no request matched fails the test when it
// ends (Verify), so a test cannot pass by declaring answers its code
// never asks for; and a request no stub matches fails it at once.
type Stub struct {
	route
	c        *Cloud // its mutex guards the fields below
	h        http.HandlerFunc
	used     int
	times    int    // > 0: exactly this many requests
	optional string // why it may go unused ("" it may not)
	// dflt: New's answer for a path nothing else declares (a version
	// document); a route declared at its path replaces it.
	dflt     bool
	reported bool // Verify failed the test for it
	// members: a bare Handle's stub stands for the stubs whose answer it
	// swapped; it is used when they are, from base on.
	members []*Stub
	base    []int
}

// Times makes the stub answer exactly n requests: the n+1th fails the
// test as an unexpected one, fewer fail it at Verify.
func (s *Stub) Times(n int) *Stub {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.times = n
	return s
}

// Optional lets the stub go unused: for routes a fake registers as a
// service would serve them (version documents, a generated cloud's API)
// and a test reads a part of. why says so, for Verify's messages and
// the reader; a test's own expectations are never optional.
func (s *Stub) Optional(why string) *Stub {
	if why == "" {
		why = "optional"
	}
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.optional = why
	return s
}

// OptionalRoutes makes every route declared from now on optional, for
// why, until OptionalRoutes(""): for a helper that builds a cloud several
// tests read parts of (Standard does). A test's own route, or one it
// declares again, is required.
func (c *Cloud) OptionalRoutes(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.optionalWhy = why
}

// Used is how many requests the stub answered.
func (s *Stub) Used() int {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return s.count()
}

func (s *Stub) count() int {
	n := s.used
	for i, m := range s.members {
		n += m.used - s.base[i]
	}
	return n
}

// Handle declares a route (see route for its syntax) answered by h, and
// returns its stub. A route declared the same again replaces the answer
// (and must then be used: the test asked for it); one declared at the
// path of New's default (a version document) replaces that, so the
// default cannot answer what the route refuses. A bare "METHOD /path"
// where routes are already declared swaps their answer and keeps what
// they expect; elsewhere it matches only requests without a query.
func (c *Cloud) Handle(decl string, h http.HandlerFunc) *Stub {
	r, err := parseRoute(decl)
	if err != nil {
		c.fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !r.bare() {
		kept := c.stubs[:0]
		for _, old := range c.stubs {
			if !old.dflt || old.method != r.method || old.path != r.path || old.decl == r.decl {
				kept = append(kept, old)
			}
		}
		c.stubs = kept
	}
	var swapped []*Stub
	for _, old := range c.stubs {
		if old.members == nil && old.method == r.method && old.path == r.path && (r.bare() || old.decl == r.decl) {
			old.h = h
			swapped = append(swapped, old)
		}
	}
	switch {
	case len(swapped) == 1 && swapped[0].decl == r.decl:
		swapped[0].optional, swapped[0].dflt = c.optionalWhy, false
		return swapped[0]
	case len(swapped) > 0:
		s := &Stub{route: r, c: c, members: swapped, optional: c.optionalWhy}
		for _, m := range swapped {
			s.base = append(s.base, m.used)
		}
		c.stubs = append(c.stubs, s)
		return s
	}
	s := &Stub{route: r, c: c, h: h, optional: c.optionalWhy}
	c.stubs = append(c.stubs, s)
	return s
}

// HandleSeq declares a route answered by hs in turn, each once: the
// route must be asked exactly len(hs) times (the same request answered
// 200, then 404).
func (c *Cloud) HandleSeq(decl string, hs ...http.HandlerFunc) *Stub {
	i := 0
	return c.Handle(decl, func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		h := hs[min(i, len(hs)-1)]
		i++
		c.mu.Unlock()
		h(w, r)
	}).Times(len(hs))
}

// Verify fails the test (or, without one, reports to Stats) for every
// stub no request used, or used fewer times than it declares, once. New
// runs it when the test ends; a test may run it earlier.
func (c *Cloud) Verify() {
	for _, s := range c.unused() {
		c.mu.Lock()
		first := !s.reported
		s.reported = true
		c.mu.Unlock()
		if first {
			c.report("fakecloud: %s", s.why)
		}
	}
}

// Unused lists the stubs Verify fails, one line each.
func (c *Cloud) Unused() []string {
	var out []string
	for _, s := range c.unused() {
		out = append(out, s.why)
	}
	return out
}

type unusedStub struct {
	*Stub
	why string
}

func (c *Cloud) unused() []unusedStub {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []unusedStub
	for _, s := range c.stubs {
		n := s.count()
		switch {
		case s.optional != "":
		case s.times > 0 && n != s.times:
			out = append(out, unusedStub{s, fmt.Sprintf("stub %q answered %d of its %d requests", s.decl, n, s.times)})
		case n == 0:
			out = append(out, unusedStub{s, fmt.Sprintf("stub %q was never requested", s.decl)})
		}
	}
	return out
}

// JSON is a handler that answers status and body as the services do:
// one JSON value with its Content-Length.
func JSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { WriteBody(w, status, []byte(body)) }
}

// Reply answers v encoded as JSON.
func Reply(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"error":"fakecloud: cannot encode"}`)
	}
	WriteBody(w, status, b)
}

// WriteBody answers b with its Content-Length. A chunked answer (what Go
// sends past its 4 KiB buffer) ends in a zero chunk a JSON decoder never
// reads, so the client could not reuse the connection: a bench would
// count connections a real cloud does not cause.
func WriteBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// NotFound answers 404 with Keystone's error body naming what.
func NotFound(w http.ResponseWriter, what string) {
	Reply(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "Could not find " + what + ".", "title": "Not Found"}})
}

// match finds the stub for req: among the stubs whose query, microversion
// and body match, a test's own before an optional one (the standard
// cloud's, Keystone's), then the most specific path. near says why the others at
// that path did not; spent is a stub that matched but has answered all
// its requests.
func (c *Cloud) match(req *http.Request, body []byte) (best *Stub, near []string, spent *Stub) {
	score := 0
	for _, s := range c.stubs {
		if s.members != nil || s.method != req.Method {
			continue
		}
		sc := s.pathScore(req.URL.Path, nil)
		if sc == 0 {
			continue
		}
		if why := s.mismatch(req, body); why != "" {
			near = append(near, fmt.Sprintf("%q: %s", s.decl, why))
			continue
		}
		if s.times > 0 && s.used >= s.times {
			spent = s
			continue
		}
		if s.optional == "" {
			sc += 1 << 40 // a test's expectation overrides the fake's defaults
		}
		if sc > score {
			score, best = sc, s
		}
	}
	if best != nil {
		best.pathScore(req.URL.Path, req) // its {name} segments' values
		best.used++
	}
	return best, near, spent
}

func noRoute(line string, near []string, spent *Stub) string {
	switch {
	case spent != nil:
		return fmt.Sprintf("fakecloud: %s: stub %q already answered its %d requests", line, spent.decl, spent.times)
	case len(near) == 0:
		return "fakecloud: no route for " + line
	}
	return fmt.Sprintf("fakecloud: no route for %s (%s)", line, strings.Join(near, "; "))
}
