package fakecloud

import (
	"encoding/json"
	"fmt"
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

// Cloud is a running fake.
type Cloud struct {
	*httptest.Server
	t        *testing.T
	mu       sync.Mutex
	handlers map[string]http.HandlerFunc // "GET /compute/v2.1/servers/detail" or a path prefix "GET /compute/…*"
	Requests []string                    // "METHOD path?query", in order
	// Region of every catalog endpoint; IdentityRegion of Keystone's.
	Region, IdentityRegion string
	// TokenStatus, when set, answers POST /v3/auth/tokens with it.
	TokenStatus int
	TokenBody   string
}

// New starts a fake cloud and writes clouds.yaml (cloud "fake") for it;
// OS_CLIENT_CONFIG_FILE points there for the test.
func New(t *testing.T) *Cloud {
	c := &Cloud{t: t, handlers: map[string]http.HandlerFunc{}, Region: "RegionOne", IdentityRegion: "RegionOne"}
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

// Handle answers "METHOD /path" (exact, query ignored) or, ending in "*",
// every path with that prefix.
func (c *Cloud) Handle(route string, h http.HandlerFunc) {
	c.mu.Lock()
	c.handlers[route] = h
	c.mu.Unlock()
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
	c.mu.Lock()
	c.Requests = append(c.Requests, r.Method+" "+r.URL.RequestURI())
	route := r.Method + " " + r.URL.Path
	h := c.handlers[route]
	if h == nil {
		best := ""
		for k, v := range c.handlers {
			if strings.HasSuffix(k, "*") && strings.HasPrefix(route, strings.TrimSuffix(k, "*")) && len(k) > len(best) {
				best, h = k, v
			}
		}
	}
	c.mu.Unlock()
	if r.Method == "POST" && r.URL.Path == "/identity/v3/auth/tokens" {
		c.token(w, r)
		return
	}
	if h == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"error":"fakecloud: no handler for %s"}`, route)
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
		},
	}}
	w.Header().Set("X-Subject-Token", Token)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(201)
	json.NewEncoder(w).Encode(body)
}

// ServiceClient is a client for one of the fake's services ("compute/v2.1",
// "image"), for API packages' tests that need no session.
func (c *Cloud) ServiceClient(path string) *gophercloud.ServiceClient {
	pc := &gophercloud.ProviderClient{HTTPClient: *http.DefaultClient}
	pc.SetToken(Token)
	ep := c.URL + "/" + strings.Trim(path, "/") + "/"
	sc := &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: ep, ResourceBase: ep}
	if strings.HasPrefix(path, "image") {
		sc.ResourceBase = ep + "v2/"
	}
	return sc
}
