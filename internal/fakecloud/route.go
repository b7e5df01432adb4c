package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// A route is what a test expects a client to send. Its declaration reads
// like the request it matches:
//
//	GET /compute/v2.1/servers?all_tenants=true&flavor=*&limit=1000 [compute 2.47]
//	POST /volume/v3/p1/volumes/{id}/action [volume 3.70] {"os-unset_image_metadata":{"key":"os_type"}}
//
// The path is exact, a segment {name} stands for any one segment (the
// handler reads it with r.PathValue), and a path ending in "*" is a
// prefix. The query lists every parameter the request may carry, escaped
// as in a URL (a space is "+"): k=v must be sent with value v, k=* with
// any value, [k=v] or [k=*] may be left out; a parameter the route does
// not name fails the match, so does a route with no query for a request
// that has one. The bracket, when there, is the microversion the request
// must ask for (OpenStack-API-Version or the service's own header):
// "compute 2.47" exactly, "compute >=2.61" at least, "none" no
// microversion header at all. Without it any microversion (or none)
// matches. A JSON object at the end is the body the request must send
// (compared decoded: key order and spacing do not matter).
type route struct {
	decl         string
	method, path string
	query        []param
	mv           string // "compute 2.47", "compute >=2.61", "none" or ""
	body         any    // decoded; nil: any body
}

type param struct {
	key, value string // value "*": any
	optional   bool
}

func parseRoute(decl string) (route, error) {
	f := strings.Fields(decl)
	if len(f) < 2 {
		return route{}, fmt.Errorf("route %q: want METHOD /path[?query] [[service version]] [{body}]", decl)
	}
	r := route{decl: decl, method: f[0]}
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(decl, f[0])), f[1]))
	if strings.HasPrefix(rest, "[") {
		end := strings.Index(rest, "]")
		if end < 0 {
			return route{}, fmt.Errorf("route %q: the microversion is written [service version]", decl)
		}
		r.mv = strings.TrimSpace(rest[1:end])
		if n := len(strings.Fields(r.mv)); n != 2 && r.mv != "none" {
			return route{}, fmt.Errorf("route %q: the microversion is written [service version] or [none]", decl)
		}
		rest = strings.TrimSpace(rest[end+1:])
	}
	if rest != "" {
		if !strings.HasPrefix(rest, "{") || json.Unmarshal([]byte(rest), &r.body) != nil {
			return route{}, fmt.Errorf("route %q: after the path, [service version] and a JSON object body only", decl)
		}
	}
	path, q, _ := strings.Cut(f[1], "?")
	r.path = path
	for _, p := range strings.Split(q, "&") {
		if p == "" {
			continue
		}
		opt := strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]")
		k, v, ok := strings.Cut(strings.Trim(p, "[]"), "=")
		if !ok {
			return route{}, fmt.Errorf("route %q: parameter %q has no =value (=* for any)", decl, p)
		}
		v, err := url.QueryUnescape(v)
		if err != nil {
			return route{}, fmt.Errorf("route %q: %v", decl, err)
		}
		r.query = append(r.query, param{key: k, value: v, optional: opt})
	}
	return r, nil
}

// bare is a route that names only method and path: Handle then swaps the
// answer of the routes already declared there and keeps their
// expectations (a test turns the standard server list into a 403).
func (r route) bare() bool { return !strings.Contains(r.decl, "?") && r.mv == "" && r.body == nil }

// key names the route in counts: method and path as declared.
func (r route) key() string { return r.method + " " + r.path }

// pathScore is how specifically the route's path matches p: 0 not at all,
// an exact path beats a template, a template every prefix, a longer
// prefix a shorter one. Templates set their segments' values on req.
func (r route) pathScore(p string, req *http.Request) int {
	if prefix, ok := strings.CutSuffix(r.path, "*"); ok {
		if strings.HasPrefix(p, prefix) {
			return 1 + len(prefix)
		}
		return 0
	}
	if p == r.path {
		return 1 << 30
	}
	if !strings.Contains(r.path, "{") {
		return 0
	}
	ts, ps := strings.Split(r.path, "/"), strings.Split(p, "/")
	if len(ts) != len(ps) {
		return 0
	}
	literal := 0
	for i, t := range ts {
		switch {
		case strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}"):
			if ps[i] == "" {
				return 0
			}
		case t != ps[i]:
			return 0
		default:
			literal++
		}
	}
	if req != nil {
		for i, t := range ts {
			if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
				req.SetPathValue(t[1:len(t)-1], ps[i])
			}
		}
	}
	return 1<<29 + literal
}

// mismatch says why req does not match the route's query, microversion
// and body ("" when it does).
func (r route) mismatch(req *http.Request, body []byte) string {
	got := req.URL.Query()
	declared := map[string]bool{}
	for _, p := range r.query {
		declared[p.key] = true
		vs, sent := got[p.key]
		switch {
		case !sent && !p.optional:
			return "missing " + p.key
		case sent && len(vs) != 1:
			return fmt.Sprintf("%s sent %d times", p.key, len(vs))
		case sent && p.value != "*" && vs[0] != p.value:
			return fmt.Sprintf("%s=%s, want %s", p.key, vs[0], p.value)
		}
	}
	var extra []string
	for k := range got {
		if !declared[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return "undeclared " + strings.Join(extra, ", ")
	}
	if why := r.mvMismatch(req); why != "" {
		return why
	}
	if r.body != nil && !sameJSON(r.body, body) {
		return fmt.Sprintf("body %s", body)
	}
	return ""
}

func (r route) mvMismatch(req *http.Request) string {
	switch r.mv {
	case "":
		return ""
	case "none":
		for _, h := range []string{"OpenStack-API-Version", "X-OpenStack-Nova-API-Version", "X-OpenStack-Volume-API-Version"} {
			if v := req.Header.Get(h); v != "" {
				return fmt.Sprintf("%s: %s, want no microversion", h, v)
			}
		}
		return ""
	}
	svc, want, _ := strings.Cut(r.mv, " ")
	have := microversion(req, svc)
	if have == "" {
		return "no microversion, want " + r.mv
	}
	if min, ok := strings.CutPrefix(want, ">="); ok {
		if !versionAtLeast(have, min) {
			return fmt.Sprintf("microversion %s %s, want %s", svc, have, r.mv)
		}
		return ""
	}
	if have != want {
		return fmt.Sprintf("microversion %s %s, want %s", svc, have, r.mv)
	}
	return ""
}

func sameJSON(want any, got []byte) bool {
	var g any
	if json.Unmarshal(got, &g) != nil {
		return false
	}
	a, _ := json.Marshal(want) // maps marshal with sorted keys
	b, _ := json.Marshal(g)
	return string(a) == string(b)
}

// microversion is the version req asks of service svc: the generic
// header first, else the service's own (Nova's, Cinder's).
func microversion(req *http.Request, svc string) string {
	if s, v, ok := strings.Cut(req.Header.Get("OpenStack-API-Version"), " "); ok && s == svc {
		return v
	}
	legacy := map[string]string{"compute": "X-OpenStack-Nova-API-Version", "volume": "X-OpenStack-Volume-API-Version"}[svc]
	if legacy != "" {
		return req.Header.Get(legacy)
	}
	return ""
}

// versionAtLeast compares "2.86" with "2.61" as numbers.
func versionAtLeast(have, min string) bool {
	split := func(v string) (int, int) {
		a, b, _ := strings.Cut(v, ".")
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x, y
	}
	ha, hb := split(have)
	ma, mb := split(min)
	return ha > ma || ha == ma && hb >= mb
}

// Request is one request the fake received, as sent.
type Request struct {
	Method, Path string
	Query        url.Values
	// Microversion is the OpenStack-API-Version header ("compute 2.47"),
	// or the service's own header's value when only that was sent.
	Microversion string
	Body         string
}

func (r Request) String() string {
	s := r.Method + " " + r.Path
	if len(r.Query) > 0 {
		s += "?" + r.Query.Encode()
	}
	if r.Microversion != "" {
		s += " [" + r.Microversion + "]"
	}
	return s
}

func recordOf(req *http.Request, body []byte) Request {
	mv := req.Header.Get("OpenStack-API-Version")
	if v := req.Header.Get("X-OpenStack-Nova-API-Version"); mv == "" && v != "" {
		mv = "compute " + v
	}
	return Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Microversion: mv, Body: string(body)}
}
