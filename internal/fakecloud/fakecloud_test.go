package fakecloud

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that keeps what the fake reports instead of
// failing the real test: the strict mode itself is under test.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestStrictRoutes(t *testing.T) {
	cases := []struct {
		route, uri string
		header     map[string]string
		ok         bool
		why        string // in the reported line when !ok
	}{
		{"GET /a?x=1&y=*", "/a?y=2&x=1", nil, true, ""},
		{"GET /a?x=1&y=*", "/a?x=1", nil, false, "missing y"},
		{"GET /a?x=1", "/a?x=2", nil, false, "x=2, want 1"},
		{"GET /a?x=1", "/a?x=1&z=3", nil, false, "undeclared z"},
		{"GET /a?x=1", "/a?x=1&x=1", nil, false, "x sent 2 times"},
		{"GET /a?[x=*]&y=1", "/a?y=1", nil, true, ""},
		{"GET /a", "/a?y=1", nil, false, "no route for GET /a?y=1"},
		{"GET /a?n=vTPM+secret+%25", "/a?n=vTPM%20secret%20%25", nil, true, ""},
		{"GET /p/*", "/p/q/r", nil, true, ""},
		{"GET /p/*", "/other", nil, false, "no route for GET /other"},
		{"GET /a [compute 2.47]", "/a", map[string]string{"X-OpenStack-Nova-API-Version": "2.47"}, true, ""},
		{"GET /a [compute 2.47]", "/a", map[string]string{"OpenStack-API-Version": "compute 2.47"}, true, ""},
		{"GET /a [compute 2.47]", "/a", nil, false, "no microversion, want compute 2.47"},
		{"GET /a [compute 2.47]", "/a", map[string]string{"OpenStack-API-Version": "compute 2.61"}, false, "microversion compute 2.61"},
		{"GET /a [compute >=2.61]", "/a", map[string]string{"OpenStack-API-Version": "compute 2.86"}, true, ""},
		{"GET /a [compute >=2.61]", "/a", map[string]string{"OpenStack-API-Version": "compute 2.9"}, false, "want compute >=2.61"},
		{"GET /a [placement >=1.18]", "/a", map[string]string{"OpenStack-API-Version": "placement 1.18"}, true, ""},
		{"GET /a [none]", "/a", nil, true, ""},
		{"GET /a [none]", "/a", map[string]string{"X-OpenStack-Nova-API-Version": "2.1"}, false, "want no microversion"},
		{"GET /s/{id}/acl", "/s/x1/acl", nil, true, ""},
		{"GET /s/{id}/acl", "/s//acl", nil, false, "no route for GET /s//acl"},
		{"GET /s/{id}/acl", "/s/x1/acl/more", nil, false, "no route"},
	}
	for _, tc := range cases {
		t.Run(tc.route+" "+tc.uri, func(t *testing.T) {
			rec := &recorder{TB: t}
			c := New(rec)
			c.Handle(tc.route, JSON(200, `{}`))
			req, _ := http.NewRequest("GET", c.URL+tc.uri, nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if tc.ok != (resp.StatusCode == 200) || tc.ok != (len(rec.errs) == 0) {
				t.Fatalf("status %d, reported %q; want matched=%v", resp.StatusCode, rec.errs, tc.ok)
			}
			if !tc.ok && !strings.Contains(rec.errs[0], tc.why) {
				t.Errorf("reported %q, want it to say %q", rec.errs[0], tc.why)
			}
			if s := c.Sent(); len(s) != 1 || s[0].Method != "GET" {
				t.Errorf("recorded %v", s)
			}
		})
	}
}

// A bare Handle where a route is declared swaps the answer and keeps the
// expectation: a test's fault injection cannot loosen the route.
func TestBareHandleKeepsExpectations(t *testing.T) {
	rec := &recorder{TB: t}
	c := New(rec)
	c.Handle("GET /l?limit=1000 [compute 2.47]", JSON(200, `{}`))
	c.Handle("GET /l", JSON(403, `{}`))
	get := func(uri string, mv string) int {
		req, _ := http.NewRequest("GET", c.URL+uri, nil)
		if mv != "" {
			req.Header.Set("OpenStack-API-Version", mv)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get("/l?limit=1000", "compute 2.47"); s != 403 || len(rec.errs) != 0 {
		t.Errorf("declared request: %d %q", s, rec.errs)
	}
	if s := get("/l", ""); s != 501 || len(rec.errs) != 1 {
		t.Errorf("undeclared request: %d %q", s, rec.errs)
	}
	r := c.SentTo("GET", "/l")
	if len(r) != 2 || r[0].Query.Get("limit") != "1000" || r[0].Microversion != "compute 2.47" || r[0].String() != "GET /l?limit=1000 [compute 2.47]" {
		t.Errorf("recorded %v", r)
	}
}

func TestParseRouteRefusesMistakes(t *testing.T) {
	for _, decl := range []string{"GET", "GET /a?x", "GET /a compute 2.1", "GET /a [2.1]", "GET /a [compute 2.1", "POST /a [none] x", "POST /a {bad"} {
		if _, err := parseRoute(decl); err == nil {
			t.Errorf("%q: accepted", decl)
		}
	}
}
