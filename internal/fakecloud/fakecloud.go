package fakecloud

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// Project and user IDs the fake token carries.
const (
	ProjectID = "11111111111111111111111111111111"
	UserID    = "22222222222222222222222222222222"
	Token     = "gAAAAfake-token-value"
	// Password is admin's. Not a word: vtpmctl scrubs the password from
	// everything it prints, and a common word would be scrubbed from names.
	Password = "fake-password-Zq9"
)

// Cloud is a running fake. It is strict: a request no stub matches
// (method, path, query, microversion, body: see Handle) fails the test,
// so a client that drops a filter or a microversion cannot pass by luck;
// a stub no request used fails it at the end (Verify).
type Cloud struct {
	*httptest.Server
	t      testing.TB // nil: Serve's, reports go to Stats only
	mu     sync.Mutex
	stubs  []*Stub
	sent   []Request
	record bool
	// optionalWhy: routes declared now are optional (OptionalRoutes)
	optionalWhy string
	// Requests are the request lines ("METHOD path?query"), in order, for
	// messages; Sent has them decoded, for assertions.
	Requests []string
	// Region of every catalog endpoint; IdentityRegion of Keystone's.
	Region, IdentityRegion string
	// TokenStatus, when set, answers POST /identity/v3/auth/tokens with it.
	TokenStatus int
	TokenBody   string
	// Latency, when set, is each route's service time (a bench's);
	// Capacity, when set, is how many requests the fake serves at once:
	// one more is answered 429 with Retry-After (RetryAfter, whole
	// seconds, at least 1).
	Latency    Latency
	Capacity   int
	RetryAfter time.Duration
	keystone
	counters
	trace trace
}

// Options are NewWith's and Serve's.
type Options struct {
	// TLS serves https with the test server's certificate (Client trusts it).
	TLS bool
	// NoRecord keeps the counters only, not every request: a bench's
	// hundred thousand requests.
	NoRecord bool
	// Trace keeps every request's span (Trace): a bench's timeline.
	Trace bool
}

// New starts a fake cloud for a test and writes clouds.yaml (cloud
// "fake") for it; OS_CLIENT_CONFIG_FILE points there for the test. When
// the test ends the fake closes and runs Verify.
func New(t testing.TB) *Cloud { return NewWith(t, Options{}) }

// NewTLS is New over https; clouds.yaml names the fake's CA (cacert).
func NewTLS(t testing.TB) *Cloud { return NewWith(t, Options{TLS: true}) }

// NewWith is New with options (a benchmark's NoRecord).
func NewWith(t testing.TB, o Options) *Cloud {
	c := start(t, o)
	t.Cleanup(func() {
		c.Close()
		c.Verify()
	})
	dir := t.TempDir()
	yaml := CloudsYAML("fake", c.URL, Scope{ProjectID: ProjectID})
	if o.TLS {
		ca := filepath.Join(dir, "ca.pem")
		if err := os.WriteFile(ca, c.CACert(), 0o600); err != nil {
			t.Fatal(err)
		}
		yaml += "    cacert: " + ca + "\n"
	}
	p := filepath.Join(dir, "clouds.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", p)
	t.Setenv("OS_CLOUD", "")
	return c
}

// Serve starts a fake cloud without a test (a bench): what it would fail
// a test for is counted in Stats (Unexpected, NUnexpected) instead.
// Close it when done.
func Serve(o Options) *Cloud { return start(nil, o) }

func start(t testing.TB, o Options) *Cloud {
	c := &Cloud{t: t, record: !o.NoRecord, Region: "RegionOne", IdentityRegion: "RegionOne"}
	c.keystone.init()
	c.counters.reset()
	c.trace.on = o.Trace
	c.trace.reset()
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(c.serve))
	c.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, new(atomic.Bool))
	}
	c.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.conns.Add(1)
		}
	}
	if o.TLS {
		c.StartTLS()
	} else {
		c.Start()
	}
	// version documents: gophercloud reads Nova's for its microversions
	// and asks an unversioned endpoint for its versions; a command reads
	// some of them, a test none
	const docs = "version documents, read as a client needs them"
	for _, s := range []*Stub{
		c.Handle("GET /compute/v2.1/", JSON(200, `{"version":{"id":"v2.1","status":"CURRENT","version":"2.93","min_version":"2.1"}}`)).Optional(docs),
		c.Handle("GET /image/", JSON(200, `{"versions":[{"id":"v2.9","status":"CURRENT"}]}`)).Optional(docs),
		c.Handle("GET /key-manager/", JSON(300, `{"versions":{"values":[{"id":"v1","status":"stable"}]}}`)).Optional(docs),
		c.Handle("GET /placement/", JSON(200, `{"versions":[{"id":"v1.0","status":"CURRENT","max_version":"1.39","min_version":"1.0"}]}`)).Optional(docs),
		c.Handle("POST /identity/v3/auth/tokens", c.issueToken).Optional("Keystone's token API: only sessions log in"),
	} {
		s.dflt = true
	}
	return c
}

// CACert is the PEM of the TLS fake's certificate (nil over http).
func (c *Cloud) CACert() []byte {
	if c.Certificate() == nil {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate().Raw})
}

// Scope is the project a clouds.yaml logs in to: by ID, or by name in
// the Default domain.
type Scope struct{ ProjectID, ProjectName string }

// CloudsYAML is a clouds.yaml naming the fake at url (its URL, or a
// proxy's standing for it) as cloud name, admin logging in with Password.
func CloudsYAML(name, url string, s Scope) string {
	scope := "      project_id: " + s.ProjectID + "\n"
	if s.ProjectID == "" {
		scope = "      project_name: " + s.ProjectName + "\n      project_domain_name: Default\n"
	}
	return fmt.Sprintf("clouds:\n  %s:\n    auth:\n      auth_url: %s/identity/v3\n      username: admin\n      password: %s\n%s      user_domain_name: Default\n    region_name: RegionOne\n",
		name, url, Password, scope)
}

// Sent returns every request received so far, in order.
func (c *Cloud) Sent() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Request(nil), c.sent...)
}

// SentTo returns the requests to method and path (exact), in order.
func (c *Cloud) SentTo(method, path string) []Request {
	var out []Request
	for _, r := range c.Sent() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// Count returns how many requests started with prefix ("GET /compute").
func (c *Cloud) Count(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.Requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

// Errorf fails the test the fake serves (a handler's own check), or
// without one counts it in Stats.
func (c *Cloud) Errorf(format string, args ...any) { c.report(format, args...) }

func (c *Cloud) report(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	c.counters.unexpected(line)
	if c.t != nil {
		c.t.Errorf("%s", line)
	}
}

func (c *Cloud) fatal(err error) {
	if c.t != nil {
		c.t.Fatal(err)
	}
	panic(err)
}

func (c *Cloud) serve(rw http.ResponseWriter, r *http.Request) {
	start := time.Now()
	done, inFlight := c.counters.begin()
	w := &statusWriter{ResponseWriter: rw, status: http.StatusOK}
	name := "UNEXPECTED"
	defer func() {
		done(time.Since(start))
		c.trace.add(name, start, w.status)
	}()
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.mu.Lock()
	if c.record {
		c.Requests = append(c.Requests, r.Method+" "+r.URL.RequestURI())
		c.sent = append(c.sent, recordOf(r, body))
	}
	s, near, spent := c.match(r, body)
	c.mu.Unlock()
	if s != nil {
		name = s.key()
	}
	c.counters.count(r, name)
	if s == nil {
		line := recordOf(r, nil).String()
		c.report("%s", noRoute(line, near, spent))
		Reply(w, http.StatusNotImplemented, map[string]any{"error": "fakecloud: no route for " + r.Method + " " + r.URL.Path})
		return
	}
	if !c.authorized(w, r) || c.pushBack(w, inFlight) || !c.wait(r, name) {
		return
	}
	s.h(w, r)
}

// ServiceClient is a client for one of the fake's services ("compute/v2.1",
// "image", "volume/v3/"+ProjectID), for API packages' tests that need no
// session, carrying Token. Its Type is the session's, so microversion
// headers are sent as a real session sends them.
func (c *Cloud) ServiceClient(path string) *gophercloud.ServiceClient {
	pc := &gophercloud.ProviderClient{HTTPClient: *c.Client()}
	pc.SetToken(Token)
	ep := c.URL + "/" + strings.Trim(path, "/") + "/"
	typ, _, _ := strings.Cut(strings.Trim(path, "/"), "/")
	if typ == "volume" {
		typ = "block-storage"
	}
	sc := &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: ep, ResourceBase: ep, Type: typ}
	switch {
	case strings.HasPrefix(path, "image"):
		sc.ResourceBase = ep + "v2/"
	case strings.HasPrefix(path, "key-manager"):
		sc.ResourceBase = ep + "v1/"
	}
	return sc
}
