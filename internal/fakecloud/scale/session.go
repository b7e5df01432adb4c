// Package scaletest connects a test to a strict synthetic cloud the way
// vtpmctl connects (clouds.yaml, cloud.Connect), so each service's tests
// share one way in instead of a copy per package.
package scaletest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/scalecloud"
)

// Session starts a scalecloud of cfg and logs in as its admin (scoped to
// the admin project). At the end of the test the cloud closes, and any
// request it did not serve fails the test: strict by construction.
func Session(t testing.TB, cfg scalecloud.Config) (*scalecloud.Cloud, *cloud.Session) {
	t.Helper()
	c, err := scalecloud.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s := c.Stats(); s.NUnexpected > 0 {
			t.Errorf("%d requests the cloud does not serve: %v", s.NUnexpected, s.Unexpected)
		}
		c.Close()
	})
	path := filepath.Join(t.TempDir(), "clouds.yaml")
	yaml := fmt.Sprintf("clouds:\n  scale:\n    auth:\n      auth_url: %s/v3\n      username: admin\n      password: %s\n      project_name: admin\n      user_domain_name: Default\n      project_domain_name: Default\n    region_name: RegionOne\n", c.URL, scalecloud.Password)
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
