package scale

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// start generates cfg's cloud on a strict fake: a request it does not
// serve fails the test.
func start(t *testing.T, cfg Config) *Cloud {
	t.Helper()
	c, err := New(fakecloud.New(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startCounting is start on a fake that counts what it does not serve
// instead (as in a bench): for tests that send such requests on purpose.
func startCounting(t *testing.T, cfg Config) *Cloud {
	t.Helper()
	fc := fakecloud.Serve(fakecloud.Options{})
	t.Cleanup(fc.Close)
	c, err := New(fc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// get sends a GET with token tok and decodes the JSON answer.
func get(t *testing.T, tok, u string, v any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("X-Auth-Token", tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil {
		json.NewDecoder(resp.Body).Decode(v)
	}
	io.Copy(io.Discard, resp.Body) // read to the end, or the connection is not reused
	return resp.StatusCode
}

// An unknown route, an unserved filter and a token Keystone never issued
// are each unexpected (a test fails on them) and answered as a real
// service would not (501) or would (401); every request is counted, by
// the route it matched, and its connection.
func TestStrictAndCounted(t *testing.T) {
	c := startCounting(t, Config{Guests: 10, Projects: 2, Hypervisors: 3})
	tok := c.Token(c.d.projectID(pAdmin))
	if s := get(t, tok, c.URL+"/compute/v2.1/os-aggregates", nil); s != 501 {
		t.Errorf("unknown route: %d", s)
	}
	if s := get(t, tok, c.URL+"/compute/v2.1/servers/detail?name=x", nil); s != 501 {
		t.Errorf("unserved filter: %d", s)
	}
	if s := get(t, "nope", c.URL+"/compute/v2.1/servers/detail", nil); s != 401 {
		t.Errorf("no token: %d", s)
	}
	st := c.Stats()
	if st.NUnexpected != 3 || st.Requests != 3 || st.ByRoute["GET /compute/v2.1/servers/detail"] != 1 || st.ByRoute["UNEXPECTED"] != 2 || st.Connections != 1 ||
		!reflect.DeepEqual(st.ConnFirstRoute, map[string]int{"UNEXPECTED": 1}) {
		t.Errorf("stats: %+v", st)
	}
}

// Nova pages by marker with a next link on every full page; Barbican's
// old next link loses the name filter, the new one keeps it.
func TestPaging(t *testing.T) {
	for _, style := range []string{"old", "new"} {
		c := start(t, Config{Guests: 300, Projects: 1, Hypervisors: 3, OtherSecrets: 40, Paging: style})
		tok := c.Token(c.d.projectID(pTenant0))
		var srv struct {
			Servers []struct{ ID string }
			Links   []struct{ Href string } `json:"servers_links"`
		}
		get(t, tok, c.URL+"/compute/v2.1/servers/detail?limit=300", &srv)
		if len(srv.Servers) != 300 || len(srv.Links) != 1 {
			t.Fatalf("full page: %d servers, links %v", len(srv.Servers), srv.Links)
		}
		get(t, tok, srv.Links[0].Href, &srv)
		if len(srv.Servers) != 0 {
			t.Errorf("after the last: %d", len(srv.Servers))
		}
		var sec struct {
			Secrets []struct{ Name string }
			Total   int
			Next    string
		}
		get(t, tok, c.URL+"/key-manager/v1/secrets?limit=100&name="+url.QueryEscape("vTPM secret for instance %"), &sec)
		if sec.Total != 300 || len(sec.Secrets) != 100 || sec.Next == "" {
			t.Fatalf("%s: first page %d of %d, next %q", style, len(sec.Secrets), sec.Total, sec.Next)
		}
		next, _ := url.Parse(sec.Next)
		if kept := next.Query().Has("name"); kept != (style == "new") {
			t.Errorf("%s: next link %s", style, sec.Next)
		}
		get(t, tok, sec.Next, &sec)
		others := 0
		for _, s := range sec.Secrets {
			if !strings.HasPrefix(s.Name, "vTPM") {
				others++
			}
		}
		if (others > 0) != (style == "old") {
			t.Errorf("%s: second page has %d other secrets", style, others)
		}
	}
}
