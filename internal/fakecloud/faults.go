// Package faults is a fault-injecting HTTP proxy for tests: real
// services do not fail on demand, so a test puts this between vtpmctl
// and a cloud (the strict synthetic one or a live release cloud) and
// has a set share of requests delayed, refused, cut or reset.
//
// One listener stands for each upstream origin; every occurrence of an
// upstream origin in an answer (the Keystone catalog, next links,
// Location) is rewritten to its listener's, so every request of a
// command, catalog endpoints included, goes through the proxy.
package fakecloud

import (
	"bytes"
	"context"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is one fault.
type Fault string

const (
	NoFault Fault = "none"
	// FaultLatency: the answer comes FaultPlan.Latency late.
	FaultLatency Fault = "latency"
	// FaultTooMany: 429 with Retry-After, not forwarded.
	FaultTooMany Fault = "429"
	// Fault500, Fault502, Fault503: the status, not forwarded.
	Fault500 Fault = "500"
	Fault502 Fault = "502"
	Fault503 Fault = "503"
	// FaultTruncated: the upstream's answer, its body cut in half (the
	// Content-Length of the whole), then the connection closed.
	FaultTruncated Fault = "truncated-body"
	// FaultReset: half the body, then a TCP reset.
	FaultReset Fault = "reset-mid-body"
	// FaultSlow: the body in small pieces over FaultPlan.Latency.
	FaultSlow Fault = "slow-body"
	// FaultHang: no answer until the client gives up (its timeout).
	FaultHang Fault = "timeout"
)

// Faults are every fault but NoFault.
var Faults = []Fault{FaultLatency, FaultTooMany, Fault500, Fault502, Fault503, FaultTruncated, FaultReset, FaultSlow, FaultHang}

// FaultPlan says which fault each request gets: each request draws Kind with
// probability Rate (from Seed, in arrival order).
type FaultPlan struct {
	Seed    int64
	Rate    float64
	Kind    Fault
	Latency time.Duration // FaultLatency and FaultSlow; default 50 ms
	// Before, when set, sees each request before it is forwarded (a
	// test interrupts the client there: a request boundary); drop: the
	// connection is closed and the request never reaches the upstream.
	// A request it lets through is sent even when the client has gone
	// meanwhile: its answer is lost, its effect is not.
	Before func(r *http.Request) (drop bool)
	// Match, when set, draws faults for the requests it matches only (a
	// test fails one call; the rest pass through).
	Match func(r *http.Request) bool
}

// Exchange is one request the upstream answered.
type Exchange struct {
	Method, Path string
	Status       int
}

// Injection is one fault the proxy applied.
type Injection struct {
	Kind    Fault
	Method  string
	Path    string
	Service string // the upstream origin's listener, host:port
}

// Proxy is running listeners, one per upstream origin.
type Proxy struct {
	plan    FaultPlan
	mu      sync.Mutex
	rnd     *rand.Rand
	origins map[string]string // upstream origin -> proxy origin
	servers []*http.Server
	client  *http.Client
	faults  []Injection
	total   int
	sent    []Exchange
	closed  chan struct{}
}

// StartProxy proxies each upstream origin ("http://127.0.0.1:5000") on a
// listener of its own on 127.0.0.1.
func StartProxy(upstreams []string, plan FaultPlan) (*Proxy, error) {
	if plan.Latency <= 0 {
		plan.Latency = 50 * time.Millisecond
	}
	p := &Proxy{plan: plan, rnd: rand.New(rand.NewSource(plan.Seed)), origins: map[string]string{}, closed: make(chan struct{}),
		client: &http.Client{Transport: &http.Transport{DisableCompression: true, Proxy: nil},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	for _, up := range upstreams {
		u, err := url.Parse(up)
		if err != nil {
			p.Close()
			return nil, err
		}
		origin := u.Scheme + "://" + u.Host
		if _, ok := p.origins[origin]; ok {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.Close()
			return nil, err
		}
		p.origins[origin] = "http://" + ln.Addr().String()
		srv := &http.Server{Handler: p.handler(origin, ln.Addr().String()), ReadHeaderTimeout: 10 * time.Second}
		p.servers = append(p.servers, srv)
		go srv.Serve(ln)
	}
	return p, nil
}

// URL is the proxy's URL standing for an upstream URL.
func (p *Proxy) URL(upstream string) string { return p.rewrite(upstream) }

// Close stops every listener and ends hanging answers.
func (p *Proxy) Close() {
	select {
	case <-p.closed:
	default:
		close(p.closed)
	}
	for _, s := range p.servers {
		s.Close()
	}
}

// Exchanges are the requests the upstream answered, in order.
func (p *Proxy) Exchanges() []Exchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Exchange(nil), p.sent...)
}

// Drain stops the listeners and waits, at most d, for the requests in
// hand to be answered (one let through after its client died included).
func (p *Proxy) Drain(d time.Duration) {
	select {
	case <-p.closed:
	default:
		close(p.closed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for _, s := range p.servers {
		s.Shutdown(ctx)
	}
}

// Injected is every fault applied so far, and the requests seen.
func (p *Proxy) Injected() ([]Injection, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Injection(nil), p.faults...), p.total
}

func (p *Proxy) draw(r *http.Request, service string) Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total++
	if p.plan.Kind == "" || p.plan.Kind == NoFault || p.plan.Match != nil && !p.plan.Match(r) || p.rnd.Float64() >= p.plan.Rate {
		return NoFault
	}
	p.faults = append(p.faults, Injection{Kind: p.plan.Kind, Method: r.Method, Path: r.URL.Path, Service: service})
	return p.plan.Kind
}

func (p *Proxy) rewrite(s string) string {
	for up, px := range p.origins {
		s = strings.ReplaceAll(s, up, px)
	}
	return s
}

func (p *Proxy) handler(origin, service string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := p.draw(r, service)
		switch k {
		case FaultTooMany:
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":"faults: too many requests"}`, http.StatusTooManyRequests)
			return
		case Fault500, Fault502, Fault503:
			code, _ := strconv.Atoi(string(k))
			http.Error(w, `{"error":"faults: injected `+string(k)+`"}`, code)
			return
		case FaultHang:
			select {
			case <-r.Context().Done():
			case <-p.closed:
			}
			return
		case FaultLatency:
			time.Sleep(p.plan.Latency)
		}
		if p.plan.Before != nil && p.plan.Before(r) {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		status, header, body, err := p.forward(r, origin)
		if err == nil {
			p.mu.Lock()
			p.sent = append(p.sent, Exchange{Method: r.Method, Path: r.URL.Path, Status: status})
			p.mu.Unlock()
		}
		if err != nil {
			http.Error(w, `{"error":"faults: upstream: `+err.Error()+`"}`, http.StatusBadGateway)
			return
		}
		for key, vs := range header {
			for _, v := range vs {
				w.Header().Add(key, p.rewrite(v))
			}
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		switch k {
		case FaultTruncated, FaultReset:
			if len(body) < 2 {
				break // nothing to cut: answered whole
			}
			w.WriteHeader(status)
			w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok && k == FaultReset {
				tc.SetLinger(0) // close with RST, not FIN
			}
			conn.Close()
			return
		case FaultSlow:
			w.WriteHeader(status)
			const pieces = 8
			step := (len(body) + pieces - 1) / pieces
			for i := 0; i < len(body); i += max(step, 1) {
				w.Write(body[i:min(i+max(step, 1), len(body))])
				w.(http.Flusher).Flush()
				time.Sleep(p.plan.Latency / pieces)
			}
			return
		}
		w.WriteHeader(status)
		w.Write(body)
	})
}

// forward sends r upstream and reads the whole answer, origins rewritten.
func (p *Proxy) forward(r *http.Request, origin string) (int, http.Header, []byte, error) {
	in, err := io.ReadAll(r.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	// the client's URLs name the proxy: the upstream sees its own
	in = []byte(p.unrewrite(string(in)))
	// not the client's context: a request let through reaches the
	// upstream even when the client is gone (an answer lost, not a write)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, origin+r.URL.RequestURI(), bytes.NewReader(in))
	if err != nil {
		return 0, nil, nil, err
	}
	for key, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(key, p.unrewrite(v))
		}
	}
	req.Header.Del("Accept-Encoding")
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	h := resp.Header.Clone()
	h.Del("Content-Length")
	h.Del("Connection")
	h.Del("Transfer-Encoding")
	return resp.StatusCode, h, []byte(p.rewrite(string(body))), nil
}

// Upstream turns the proxy's URLs in s back into the upstreams' (a
// result that names an endpoint compares with a run without the proxy).
func (p *Proxy) Upstream(s string) string { return p.unrewrite(s) }

func (p *Proxy) unrewrite(s string) string {
	for up, px := range p.origins {
		s = strings.ReplaceAll(s, px, up)
	}
	return s
}
