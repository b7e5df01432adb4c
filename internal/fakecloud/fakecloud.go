package fakecloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

// Project and user IDs the fake token carries.
const (
	ProjectID = "11111111111111111111111111111111"
	UserID    = "22222222222222222222222222222222"
	Token     = "gAAAAfake-token-value"
	Password  = "fake-password-Zq9"
)

// Cloud is a running fake. It is strict: a request no route matches
// (method, path, query, microversion: see Handle) fails the test, so a
// client that drops a filter or a microversion cannot pass by luck.
type Cloud struct {
	*httptest.Server
	t      testing.TB
	mu     sync.Mutex
	routes []route
	sent   []Request
	// Requests are the request lines ("METHOD path?query"), in order, for
	// messages; Sent has them decoded, for assertions.
	Requests []string
	// Region of every catalog endpoint; IdentityRegion of Keystone's.
	Region, IdentityRegion string
	// TokenStatus, when set, answers POST /v3/auth/tokens with it.
	TokenStatus int
	TokenBody   string
}

// New starts a fake cloud and writes clouds.yaml (cloud "fake") for it;
// OS_CLIENT_CONFIG_FILE points there for the test.
func New(t testing.TB) *Cloud {
	c := &Cloud{t: t, Region: "RegionOne", IdentityRegion: "RegionOne"}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Close)
	dir := t.TempDir()
	yaml := fmt.Sprintf(`clouds:
  fake:
    auth:
      auth_url: %s/identity/v3
      username: admin
      password: %s
      project_id: %s
      user_domain_name: Default
    region_name: RegionOne
`, c.URL, Password, ProjectID)
	p := filepath.Join(dir, "clouds.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", p)
	t.Setenv("OS_CLOUD", "")
	c.Handle("GET /compute/v2.1/", JSON(200, `{"version":{"id":"v2.1","status":"CURRENT","version":"2.93","min_version":"2.1"}}`))
	// gophercloud asks an unversioned endpoint for its versions
	c.Handle("GET /image/", JSON(200, `{"versions":[{"id":"v2.9","status":"CURRENT"}]}`))
	c.Handle("GET /key-manager/", JSON(300, `{"versions":{"values":[{"id":"v1","status":"stable"}]}}`))
	c.Handle("GET /placement/", JSON(200, `{"versions":[{"id":"v1.0","status":"CURRENT","max_version":"1.39","min_version":"1.0"}]}`))
	return c
}

// Handle declares a route (see route for its syntax) answered by h,
// replacing a route declared the same. A bare "METHOD /path" where routes
// are already declared swaps their answer and keeps what they expect;
// elsewhere it matches only requests without a query.
func (c *Cloud) Handle(decl string, h http.HandlerFunc) {
	r, err := parseRoute(decl)
	if err != nil {
		c.t.Fatal(err)
	}
	r.h = h
	c.mu.Lock()
	defer c.mu.Unlock()
	swapped := false
	for i := range c.routes {
		if old := &c.routes[i]; old.method == r.method && old.path == r.path && (r.bare() || old.decl == r.decl) {
			old.h, swapped = h, true
		}
	}
	if !swapped {
		c.routes = append(c.routes, r)
	}
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

// JSON is a handler that answers status and body.
func JSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
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

func (c *Cloud) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.mu.Lock()
	c.Requests = append(c.Requests, r.Method+" "+r.URL.RequestURI())
	c.sent = append(c.sent, recordOf(r, body))
	var h http.HandlerFunc
	best := 0
	var near []string
	for _, rt := range c.routes {
		score := rt.pathScore(r.URL.Path)
		if rt.method != r.Method || score == 0 {
			continue
		}
		if why := rt.mismatch(r); why != "" {
			near = append(near, fmt.Sprintf("%q: %s", rt.decl, why))
			continue
		}
		if score > best {
			best, h = score, rt.h
		}
	}
	c.mu.Unlock()
	if r.Method == "POST" && r.URL.Path == "/identity/v3/auth/tokens" {
		c.token(w, r)
		return
	}
	if h == nil {
		line := recordOf(r, nil).String()
		if len(near) == 0 {
			c.t.Errorf("fakecloud: no route for %s", line)
		} else {
			c.t.Errorf("fakecloud: no route for %s (%s)", line, strings.Join(near, "; "))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"error":"fakecloud: no route for %s %s"}`, r.Method, r.URL.Path)
		return
	}
	h(w, r)
}

func (c *Cloud) token(w http.ResponseWriter, r *http.Request) {
	if c.TokenStatus != 0 {
		JSON(c.TokenStatus, c.TokenBody)(w, r)
		return
	}
	var req struct {
		Auth struct {
			Scope struct {
				Project struct {
					ID string `json:"id"`
				} `json:"project"`
			} `json:"scope"`
		} `json:"auth"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	project := req.Auth.Scope.Project.ID
	if project == "" {
		project = ProjectID
	}
	ep := func(typ, path, region string) map[string]any {
		return map[string]any{"type": typ, "name": typ, "endpoints": []map[string]any{
			{"interface": "public", "region": region, "region_id": region, "url": c.URL + path, "id": typ}}}
	}
	body := map[string]any{"token": map[string]any{
		"methods":    []string{"password"},
		"expires_at": "2099-01-01T00:00:00.000000Z",
		"user":       map[string]any{"id": UserID, "name": "admin", "domain": map[string]any{"id": "default", "name": "Default"}},
		"project":    map[string]any{"id": project, "name": "p-" + project[:4], "domain": map[string]any{"id": "default", "name": "Default"}},
		"roles":      []map[string]any{{"id": "r1", "name": "admin"}, {"id": "r2", "name": "member"}},
		"catalog": []map[string]any{
			ep("identity", "/identity/v3/", c.IdentityRegion), ep("compute", "/compute/v2.1/", c.Region), ep("image", "/image/", c.Region),
			ep("key-manager", "/key-manager/", c.Region), ep("placement", "/placement/", c.Region),
			ep("block-storage", "/volume/v3/"+project+"/", c.Region),
		},
	}}
	w.Header().Set("X-Subject-Token", Token)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(201)
	json.NewEncoder(w).Encode(body)
}

// ServiceClient is a client for one of the fake's services ("compute/v2.1",
// "image", "volume/v3/"+ProjectID), for API packages' tests that need no
// session. Its Type is the session's, so microversion headers are sent as
// a real session sends them.
func (c *Cloud) ServiceClient(path string) *gophercloud.ServiceClient {
	pc := &gophercloud.ProviderClient{HTTPClient: *http.DefaultClient}
	pc.SetToken(Token)
	ep := c.URL + "/" + strings.Trim(path, "/") + "/"
	typ, _, _ := strings.Cut(strings.Trim(path, "/"), "/")
	if typ == "volume" {
		typ = "block-storage"
	}
	sc := &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: ep, ResourceBase: ep, Type: typ}
	if strings.HasPrefix(path, "image") {
		sc.ResourceBase = ep + "v2/"
	}
	return sc
}
