package scale

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Session starts a synthetic cloud of cfg on a strict fakecloud and logs
// in as its admin (scoped to the admin project) the way vtpmctl connects
// (clouds.yaml, cloud.Connect), so each service's tests share one way
// in. A request the cloud does not serve fails the test. setup, each in
// turn, changes the cloud before the login (a region added to the
// catalog: fakecloud's AddRegion).
func Session(t testing.TB, cfg Config, setup ...func(*Cloud)) (*Cloud, *cloud.Session) {
	t.Helper()
	c, err := New(fakecloud.New(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(c)
	}
	path := filepath.Join(t.TempDir(), "clouds.yaml")
	yaml := fakecloud.CloudsYAML("scale", c.URL, fakecloud.Scope{ProjectName: "admin"})
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", path)
	sess, err := cloud.Connect(context.Background(), cloud.Options{Cloud: "scale", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return c, sess
}
