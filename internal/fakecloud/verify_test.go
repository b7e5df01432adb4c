package fakecloud

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// send makes one request to the fake with token tok ("" none) and
// returns the status and body.
func send(t *testing.T, c *Cloud, method, uri, tok, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, c.URL+uri, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("X-Auth-Token", tok)
	}
	resp, err := c.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Verify fails the test for a stub never used, or used other than its
// Times; an Optional stub may go unused; a bare swap is used when any
// route it swapped is.
func TestVerify(t *testing.T) {
	rec := &recorder{TB: t}
	c := Serve(Options{})
	defer c.Close()
	c.t = rec
	c.Handle("GET /used", JSON(200, `{}`))
	c.Handle("GET /unused", JSON(200, `{}`))
	c.Handle("GET /spare", JSON(200, `{}`)).Optional("the test's spare")
	c.OptionalRoutes("a helper's cloud")
	c.Handle("GET /helper", JSON(200, `{}`))
	c.Handle("GET /again", JSON(200, `{}`))
	c.OptionalRoutes("")
	c.Handle("GET /again", JSON(200, `{}`)) // declared again by the test: its own
	c.Handle("GET /twice", JSON(200, `{}`)).Times(2)
	c.Handle("GET /l?a=1", JSON(200, `{}`)).Optional("standard")
	c.Handle("GET /l?b=1", JSON(200, `{}`)).Optional("standard")
	swap := c.Handle("GET /l", JSON(403, `{}`))
	send(t, c, "GET", "/used", "", "")
	send(t, c, "GET", "/twice", "", "")
	if s, _ := send(t, c, "GET", "/l?b=1", "", ""); s != 403 || swap.Used() != 1 {
		t.Errorf("swapped answer: %d, used %d", s, swap.Used())
	}
	got := strings.Join(c.Unused(), "\n")
	for _, want := range []string{`"GET /unused" was never requested`, `"GET /twice" answered 1 of its 2 requests`, `"GET /again" was never requested`} {
		if !strings.Contains(got, want) {
			t.Errorf("unused:\n%s\nwant %s", got, want)
		}
	}
	if strings.Contains(got, "/used") || strings.Contains(got, "/spare") || strings.Contains(got, "/helper") || strings.Contains(got, "/l") || len(c.Unused()) != 3 {
		t.Errorf("unused:\n%s", got)
	}
	send(t, c, "GET", "/twice", "", "")
	if s, _ := send(t, c, "GET", "/twice", "", ""); s != 501 || !strings.Contains(strings.Join(rec.errs, "\n"), "already answered its 2 requests") {
		t.Errorf("a third request: %d %q", s, rec.errs)
	}
	c.Verify()
	if st := c.Stats(); st.NUnexpected != 3 || !strings.Contains(st.Unexpected[1], "/unused") {
		t.Errorf("stats %+v", st)
	}
}

// HandleSeq answers in turn and wants every answer used; a body in the
// declaration must be sent (compared as JSON), else no route matches.
func TestSeqAndBody(t *testing.T) {
	rec := &recorder{TB: t}
	c := New(rec)
	c.HandleSeq(`DELETE /x {"k":"v","n":[1,2]}`, JSON(200, `{}`), JSON(404, `{}`))
	c.Handle(`DELETE /x {"k":"w"}`, JSON(204, ``))
	for _, want := range []int{200, 404} {
		if s, _ := send(t, c, "DELETE", "/x", "", `{ "n":[1, 2], "k":"v" }`); s != want {
			t.Errorf("status %d, want %d", s, want)
		}
	}
	if s, _ := send(t, c, "DELETE", "/x", "", `{"k":"w"}`); s != 204 {
		t.Errorf("second body: %d", s)
	}
	if s, _ := send(t, c, "DELETE", "/x", "", `{"k":"z"}`); s != 501 || len(rec.errs) != 1 || !strings.Contains(rec.errs[0], `body {"k":"z"}`) {
		t.Errorf("another body: %d %q", s, rec.errs)
	}
}

// A template's segments reach the handler; an exact path beats it, and
// it beats a prefix.
func TestTemplates(t *testing.T) {
	c := New(t)
	c.Handle("GET /s/*", JSON(200, `"prefix"`)).Optional("the prefix that loses")
	c.Handle("GET /s/{id}/acl", func(w http.ResponseWriter, r *http.Request) { Reply(w, 200, r.PathValue("id")) })
	c.Handle("GET /s/exact/acl", JSON(200, `"exact"`))
	for uri, want := range map[string]string{"/s/a1/acl": `"a1"`, "/s/exact/acl": `"exact"`} {
		if _, b := send(t, c, "GET", uri, "", ""); b != want {
			t.Errorf("%s: %s, want %s", uri, b, want)
		}
	}
}

// A service request needs a token Keystone issued: without one it is 401
// and fails the test; a revoked token is 401 only (a client logs in
// again) and the next login gets another.
func TestTokens(t *testing.T) {
	rec := &recorder{TB: t}
	c := New(rec)
	c.Handle("GET /compute/v2.1/servers/x", JSON(200, `{}`))
	if s, _ := send(t, c, "GET", "/compute/v2.1/servers/x", "", ""); s != 401 || len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "without a token") {
		t.Fatalf("no token: %d %q", s, rec.errs)
	}
	p := strings.Repeat("9", 32)
	tok := c.Token(p)
	if s, _ := send(t, c, "GET", "/compute/v2.1/servers/x", tok, ""); s != 200 || tok != TokenFor(p) {
		t.Fatalf("token %q: %d", tok, s)
	}
	c.Revoke(tok)
	if s, _ := send(t, c, "GET", "/compute/v2.1/servers/x", tok, ""); s != 401 || len(rec.errs) != 1 {
		t.Fatalf("revoked: %d %q", s, rec.errs)
	}
	login := fmt.Sprintf(`{"auth":{"identity":{"methods":["password"],"password":{"user":{"name":"admin","password":%q}}},"scope":{"project":{"id":%q}}}}`, Password, p)
	req, _ := http.NewRequest("POST", c.URL+"/identity/v3/auth/tokens", strings.NewReader(login))
	resp, err := c.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := resp.Header.Get("X-Subject-Token"); resp.StatusCode != 201 || n == tok || n == "" {
		t.Errorf("login after the revoke: %d %q", resp.StatusCode, n)
	}
	if s, _ := send(t, c, "POST", "/identity/v3/auth/tokens", "", strings.Replace(login, Password, "wrong", 1)); s != 401 {
		t.Errorf("wrong password: %d", s)
	}
}

// Keystone scopes to the added projects only when AnyProject is off, by
// ID or name, lists them by name and cuts the list at ListLimit.
func TestProjects(t *testing.T) {
	c := New(t)
	c.AnyProject, c.ListLimit = false, 1
	c.AddProjects(Project{ID: "a1", Name: "one"}, Project{ID: "b2", Name: "two"})
	login := func(scope string) int {
		s, _ := send(t, c, "POST", "/identity/v3/auth/tokens", "",
			`{"auth":{"identity":{"password":{"user":{"name":"admin","password":"`+Password+`"}}},"scope":{"project":`+scope+`}}}`)
		return s
	}
	if a, b, x := login(`{"id":"a1"}`), login(`{"name":"two"}`), login(`{"id":"c3"}`); a != 201 || b != 201 || x != 401 {
		t.Errorf("scopes: %d %d %d", a, b, x)
	}
	if _, b := send(t, c, "GET", "/identity/v3/projects", Token, ""); !strings.Contains(b, `"truncated":true`) || strings.Contains(b, "two") {
		t.Errorf("list: %s", b)
	}
	if _, b := send(t, c, "GET", "/identity/v3/projects?name=two", Token, ""); !strings.Contains(b, `"b2"`) {
		t.Errorf("by name: %s", b)
	}
	if s, _ := send(t, c, "GET", "/identity/v3/projects/zz", Token, ""); s != 404 {
		t.Errorf("unknown: %d", s)
	}
}

// Over TLS the fake's own client trusts it, and clouds.yaml names its CA.
func TestTLS(t *testing.T) {
	c := NewTLS(t)
	c.Handle("GET /compute/v2.1/servers/x", JSON(200, `{"ok":true}`))
	sc := c.ServiceClient("compute/v2.1")
	var out struct{ OK bool }
	if _, err := sc.Get(context.Background(), sc.ServiceURL("servers", "x"), &out, nil); err != nil || !out.OK || !strings.HasPrefix(c.URL, "https://") {
		t.Errorf("%v %v", out, err)
	}
	if !strings.Contains(string(c.CACert()), "BEGIN CERTIFICATE") {
		t.Errorf("CA %q", c.CACert())
	}
}

// A route declared at a default's path (a version document) replaces
// the default: a request the route refuses is not answered by it.
func TestDefaultsGiveWay(t *testing.T) {
	rec := &recorder{TB: t}
	c := New(rec)
	c.Handle("GET /key-manager/ [key-manager latest]", JSON(300, `{}`))
	if s, _ := send(t, c, "GET", "/key-manager/", "", ""); s != 501 || len(rec.errs) != 1 {
		t.Errorf("without the microversion: %d %q", s, rec.errs)
	}
	if s, _ := send(t, c, "GET", "/placement/", "", ""); s != 200 {
		t.Errorf("another default: %d", s)
	}
}

// Silent accepts a connection and never answers.
func TestSilent(t *testing.T) {
	conn, err := net.Dial("tcp", Silent(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := conn.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("read %d bytes, %v", n, err)
	}
}
