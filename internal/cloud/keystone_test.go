package cloud

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// versionlessCloud is fakecloud behind a versionless auth_url, as most
// clouds.yaml files give it: gophercloud discovers Keystone's versions
// there first. It returns the clouds.yaml path.
func versionlessCloud(t *testing.T) (*fakecloud.Cloud, string) {
	c := fakecloud.New(t)
	c.Handle("GET /identity/", fakecloud.JSON(300, fmt.Sprintf(`{"versions":{"values":[{"id":"v3.14","status":"stable","links":[{"rel":"self","href":"%s/identity/v3/"}]}]}}`, c.URL)))
	p := filepath.Join(t.TempDir(), "clouds.yaml")
	yaml := fmt.Sprintf("clouds:\n  vl:\n    auth:\n      auth_url: %s/identity\n      username: admin\n      password: %s\n      project_id: %s\n      user_domain_name: Default\n    region_name: RegionOne\n", c.URL, fakecloud.Password, fakecloud.ProjectID)
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", p)
	t.Setenv("HOME", t.TempDir())
	return c, p
}

func connectVL(t *testing.T) *Session {
	s, err := Connect(context.Background(), Options{Cloud: "vl", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A secrets audit rescopes once per project (500 at scale): each must
// cost one token POST, not a clouds.yaml parse and a version discovery
// GET on top.
func TestForProjectOneTokenPost(t *testing.T) {
	c, _ := versionlessCloud(t)
	s := connectVL(t)
	if got := c.Count("GET /identity/"); got != 1 {
		t.Fatalf("Connect: %d discovery GETs, want 1", got)
	}
	const n = 5
	for i := range n {
		p := fmt.Sprintf("%032d", i+100)
		ps, err := s.ForProject(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, err := ps.TokenProject(); err != nil || got != p {
			t.Fatalf("ForProject(%s): token scoped to %q (%v)", p, got, err)
		}
	}
	if got := c.Count("POST /identity/v3/auth/tokens"); got != 1+n {
		t.Errorf("%d token POSTs, want %d (Connect + one per project)", got, 1+n)
	}
	if got := c.Count("GET /identity/"); got != 1 {
		t.Errorf("%d discovery GETs, want 1 (Connect's only): %q", got, c.Requests)
	}
}

// clouds.yaml is read by Connect only: deleting it afterwards must not
// break rescoping (before, ForProject re-read and re-parsed it each time).
func TestForProjectDoesNotRereadCloudsYAML(t *testing.T) {
	_, p := versionlessCloud(t)
	s := connectVL(t)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForProject(context.Background(), strings.Repeat("3", 32)); err != nil {
		t.Fatalf("ForProject after clouds.yaml was removed: %v", err)
	}
}

// A refused rescope keeps gophercloud's typed error under the one-line
// message, so callers test the status with gophercloud.ResponseCodeIs, not
// by matching text.
func TestForProjectKeepsTypedError(t *testing.T) {
	c, _ := versionlessCloud(t)
	s := connectVL(t)
	c.TokenStatus, c.TokenBody = 401, `{"error":{"code":401,"message":"The request you have made requires authentication."}}`
	_, err := s.ForProject(context.Background(), strings.Repeat("4", 32))
	if err == nil || !gophercloud.ResponseCodeIs(err, 401) {
		t.Fatalf("ForProject on a 401: %v; want an error ResponseCodeIs(401) sees", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "401 Unauthorized: The request you have made requires authentication.") {
		t.Fatalf("message %q: want one line with 401 and Keystone's message", msg)
	}
}

// Without a discovered v3 endpoint, rescoping discovers again and still
// costs one token POST at the auth_url's /v3.
func TestRescopeWithoutDiscoveredV3(t *testing.T) {
	c := fakecloud.New(t)
	ao := gophercloud.AuthOptions{IdentityEndpoint: c.URL + "/identity/v3", Username: "admin", Password: fakecloud.Password,
		DomainName: "Default", Scope: &gophercloud.AuthScope{ProjectID: strings.Repeat("5", 32)}}
	pc, err := rescope(context.Background(), http.Client{Timeout: 10 * time.Second}, gophercloud.UserAgent{}, "", ao)
	if err != nil || pc.Token() != fakecloud.TokenFor(strings.Repeat("5", 32)) {
		t.Fatalf("%v", err)
	}
	if n := c.Count("POST /identity/v3/auth/tokens"); n != 1 {
		t.Errorf("%d token POSTs", n)
	}
}

// A failed version discovery is that failure, named with the endpoint.
func TestConnectDiscoveryFails(t *testing.T) {
	c, _ := versionlessCloud(t)
	c.Handle("GET /identity/", fakecloud.JSON(503, `{"error":"maintenance"}`))
	_, err := Connect(context.Background(), Options{Cloud: "vl", Timeout: 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "authenticating to "+c.URL+"/identity") {
		t.Fatalf("%v", err)
	}
}
