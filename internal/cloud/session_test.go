package cloud

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Sessions against the strict fakecloud: the catalog it hands out, the
// clients built from it, the token's facts, and the configuration errors
// a user meets before any request.

func connectFake(t *testing.T, o Options) (*Session, error) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Cloud == "" {
		o.Cloud = "fake"
	}
	return Connect(context.Background(), o)
}

// Every service client comes from the catalog, at the endpoint the
// token names, on the one policy transport; a Cinder list through the
// session reaches the project's volume endpoint.
func TestSessionClients(t *testing.T) {
	c := fakecloud.New(t).Standard()
	s, err := connectFake(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !HasPolicy(&s.Provider.HTTPClient) || s.CloudName != "fake" || s.Endpoint.Region != "RegionOne" {
		t.Fatalf("session %+v", s)
	}
	for _, tc := range []struct {
		name string
		get  func() (*gophercloud.ServiceClient, error)
		path string
	}{
		{"compute", s.Compute, "/compute/v2.1/"},
		{"image", s.Image, "/image/"},
		{"placement", s.Placement, "/placement/"},
		{"block-storage", s.BlockStorage, "/volume/v3/" + fakecloud.ProjectID + "/"},
		{"key-manager", s.KeyManager, "/key-manager/"},
		{"identity", s.Identity, "/identity/v3/"},
	} {
		sc, err := tc.get()
		if err != nil || sc.Endpoint != c.URL+tc.path {
			t.Errorf("%s: %v %v", tc.name, sc, err)
		}
	}
	bs, _ := s.BlockStorage()
	var vols struct {
		Volumes []struct{ ID string } `json:"volumes"`
	}
	if _, err := bs.Get(context.Background(), bs.ServiceURL("volumes", "detail")+"?limit=1000", &vols, nil); err != nil || len(vols.Volumes) != 3 {
		t.Errorf("volume list through the session: %d %v", len(vols.Volumes), err)
	}
	roles, err := s.TokenRoles()
	if err != nil || strings.Join(roles, ",") != "admin,member" {
		t.Errorf("roles %v %v", roles, err)
	}
	if p, admin, err := s.TokenProject(); p != fakecloud.ProjectID || !admin || err != nil {
		t.Errorf("project %q admin %v %v", p, admin, err)
	}
}

// Over TLS, the CA clouds.yaml names (cacert) is the one trusted: the
// login and a service call succeed through the session; without it (the
// system's roots only) the login is refused.
func TestSessionOverTLS(t *testing.T) {
	c := fakecloud.NewTLS(t).Standard()
	s, err := connectFake(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bs, _ := s.BlockStorage()
	var vols struct {
		Volumes []struct{ ID string } `json:"volumes"`
	}
	if _, err := bs.Get(context.Background(), bs.ServiceURL("volumes", "detail")+"?limit=1000", &vols, nil); err != nil || len(vols.Volumes) != 3 ||
		!strings.HasPrefix(bs.Endpoint, "https://") {
		t.Errorf("volume list over TLS: %d %v at %s", len(vols.Volumes), err, bs.Endpoint)
	}
	p := filepath.Join(t.TempDir(), "clouds.yaml")
	os.WriteFile(p, []byte(fakecloud.CloudsYAML("fake", c.URL, fakecloud.Scope{ProjectID: fakecloud.ProjectID})), 0o600)
	t.Setenv("OS_CLIENT_CONFIG_FILE", p)
	if _, err := connectFake(t, Options{}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v", err)
	}
}

// A service missing from the session's region is named with the cloud
// and region; a region the catalog does not have at all is a
// ConfigError naming the regions there; Keystone, often registered in one
// region only, is found in another.
func TestSessionEndpointRegions(t *testing.T) {
	c := fakecloud.New(t)
	c.Region, c.IdentityRegion = "RegionTwo", "RegionOne" // the session's region has Keystone alone
	s, err := connectFake(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Compute()
	var nf *gophercloud.ErrEndpointNotFound
	if err == nil || !strings.Contains(err.Error(), `no compute endpoint in the service catalog of cloud "fake" (region "RegionOne")`) || !errors.As(err, &nf) && !errors.As(err, new(gophercloud.ErrEndpointNotFound)) {
		t.Errorf("compute in another region: %v", err)
	}
	c.IdentityRegion = "RegionZero" // no endpoint in the session's region
	if s, err = connectFake(t, Options{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Compute()
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Option != OptionRegion || err.Error() != `region "RegionOne" is not in the service catalog of cloud "fake" (regions there: RegionTwo, RegionZero): check region, region_name in clouds.yaml or OS_REGION_NAME` {
		t.Errorf("a region the catalog lacks: %v", err)
	}
	if ks, err := s.Identity(); err != nil || ks.Endpoint != c.URL+"/identity/v3/" {
		t.Errorf("identity in another region: %v %v", ks, err)
	}
}

// Configuration mistakes are ConfigErrors (exit 2) naming what to fix,
// found before any request; a refused password is not one.
func TestConnectConfigErrors(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) Options
		want  string
	}{
		{"no cloud", func(t *testing.T) Options {
			t.Setenv("OS_AUTH_URL", "")
			t.Setenv("OS_CLOUD", "")
			return Options{Timeout: time.Second}
		}, "no cloud configured"},
		{"unknown cloud", func(t *testing.T) Options { return Options{Cloud: "nope", Timeout: time.Second} }, `cloud "nope" not found in`},
		{"no clouds.yaml", func(t *testing.T) Options {
			t.Setenv("OS_CLIENT_CONFIG_FILE", filepath.Join(t.TempDir(), "none.yaml"))
			return Options{Cloud: "fake", Timeout: time.Second}
		}, "no clouds.yaml found"},
		{"timeout", func(t *testing.T) Options { return Options{Cloud: "fake", Timeout: -time.Second} }, "timeout -1s: must be positive"},
		{"cacert", func(t *testing.T) Options { return Options{Cloud: "fake", Timeout: time.Second, CACert: notPEM} }, "no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakecloud.New(t)
			t.Setenv("HOME", t.TempDir())
			_, err := Connect(context.Background(), tc.setup(t))
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want a ConfigError saying %q", err, tc.want)
			}
			if n := len(c.Sent()); n != 0 {
				t.Errorf("%d requests before the configuration was checked", n)
			}
		})
	}
	t.Run("refused password", func(t *testing.T) {
		c := fakecloud.New(t)
		c.TokenStatus, c.TokenBody = 401, `{"error":{"code":401,"message":"The request you have made requires authentication."}}`
		_, err := connectFake(t, Options{Insecure: true})
		var ce *ConfigError
		if err == nil || errors.As(err, &ce) || !gophercloud.ResponseCodeIs(err, 401) || !strings.Contains(err.Error(), "authenticating to") {
			t.Errorf("%v", err)
		}
	})
}

// Application credentials are bound to their project: rescoping is
// refused before any request.
func TestForProjectRefusesApplicationCredentials(t *testing.T) {
	s := &Session{auth: gophercloud.AuthOptions{ApplicationCredentialID: "ac"}}
	if _, err := s.ForProject(context.Background(), "p"); err == nil || !strings.Contains(err.Error(), "application credentials") {
		t.Errorf("%v", err)
	}
}

// Friendly keeps one line (APIErrorLine) of at most 300 characters of the body over the
// typed error; other errors pass unchanged.
func TestFriendly(t *testing.T) {
	plain := errors.New("dial tcp: refused")
	if Friendly(plain) != plain {
		t.Error("a transport error was rewritten")
	}
	err := Friendly(gophercloud.ErrUnexpectedResponseCode{Method: "GET", URL: "http://h/x", Actual: 503, Body: []byte("line one\n" + strings.Repeat("x", 400))})
	if msg := err.Error(); !strings.HasPrefix(msg, "GET /x: 503 Service Unavailable: line one xxx") || !strings.HasSuffix(msg, "…") || strings.Contains(msg, "\n") || !gophercloud.ResponseCodeIs(err, 503) {
		t.Errorf("%q", msg)
	}
}

// Project names and IDs resolve with Keystone: an ID by GET, a name by
// the filtered list; an unknown name is a ConfigError, a 5xx is not.
func TestProjectIDs(t *testing.T) {
	c := fakecloud.New(t).Standard()
	demo := ""
	for _, p := range c.FixtureObjects("projects", "projects") {
		if p["name"] == "demo" {
			demo = p["id"].(string)
		}
	}
	c.Handle("GET /identity/v3/projects/*", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/"+demo) {
			fakecloud.JSON(200, `{"project":{"id":"`+demo+`","name":"demo"}}`)(w, r)
			return
		}
		fakecloud.JSON(404, `{"error":{"code":404}}`)(w, r)
	})
	ks := c.ServiceClient("identity/v3")
	ctx := context.Background()
	ids, err := ProjectIDs(ctx, ks, []string{demo, "demo"})
	if err != nil || len(ids) != 2 || ids[0] != demo || ids[1] != demo {
		t.Fatalf("%v %v", ids, err)
	}
	if byName := c.SentTo("GET", "/identity/v3/projects"); len(byName) != 1 || byName[0].Query.Get("name") != "demo" {
		t.Errorf("a name is looked up with Keystone's name filter: %v", byName)
	}
	var ce *ConfigError
	if _, err := ProjectIDs(ctx, ks, []string{"nope"}); !errors.As(err, &ce) {
		t.Errorf("unknown: %v", err)
	}
	c.Handle("GET /identity/v3/projects/*", fakecloud.JSON(500, `{}`))
	if _, err := ProjectIDs(ctx, ks, []string{"demo"}); err == nil || errors.As(err, &ce) {
		t.Errorf("5xx: %v", err)
	}
}
