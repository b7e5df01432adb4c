package fakecloud

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The proxy stands for its upstream: the upstream's own URL in an answer
// comes back as the proxy's (so the catalog leads through it), and a
// fault drawn at rate 1 is applied to every request and recorded.
func TestProxy(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"next":"http://`+r.Host+`/page2","path":"`+r.URL.Path+`"}`)
	}))
	defer up.Close()
	for _, c := range []struct {
		kind      Fault
		status    int
		whole     bool // the body reads to its end
		forwarded bool // the upstream's answer, origins rewritten
	}{{NoFault, 200, true, true}, {Fault503, 503, true, false}, {FaultTooMany, 429, true, false}, {FaultSlow, 200, true, true}, {FaultTruncated, 200, false, false}} {
		t.Run(string(c.kind), func(t *testing.T) {
			p, err := StartProxy([]string{up.URL}, FaultPlan{Seed: 1, Rate: 1, Kind: c.kind})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			resp, err := http.Get(p.URL(up.URL) + "/v1/x")
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || (err == nil) != c.whole {
				t.Fatalf("status %d, read error %v: %s", resp.StatusCode, err, b)
			}
			if c.forwarded && (!strings.Contains(string(b), p.URL(up.URL)+"/page2") || strings.Contains(string(b), up.URL)) {
				t.Errorf("origin not rewritten: %s", b)
			}
			inj, n := p.Injected()
			if n != 1 || (c.kind == NoFault) != (len(inj) == 0) {
				t.Errorf("%d requests, injected %v", n, inj)
			}
		})
	}
}

// Match limits the faults to the requests it matches: the others are
// forwarded untouched and drawn for nothing.
func TestProxyMatch(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) }))
	defer up.Close()
	p, err := StartProxy([]string{up.URL}, FaultPlan{Seed: 1, Rate: 1, Kind: Fault503, Match: func(r *http.Request) bool { return r.URL.Path == "/v1/y" }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for path, want := range map[string]int{"/v1/x": 200, "/v1/y": 503} {
		resp, err := http.Get(p.URL(up.URL) + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	if inj, n := p.Injected(); len(inj) != 1 || inj[0].Path != "/v1/y" || n != 2 {
		t.Errorf("%d requests, injected %v", n, inj)
	}
}
