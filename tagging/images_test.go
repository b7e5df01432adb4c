package tagging

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/scalecloud"
	"github.com/vtpmctl/vtpmctl/nova"
)

// scaleSession connects as vtpmctl does (clouds.yaml) to a strict
// synthetic cloud; a request it does not serve fails the test.
func scaleSession(t *testing.T, cfg scalecloud.Config) *cloud.Session {
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
	return sess
}

// A dry run plans the change and advises on the cloud's vTPM flavor
// (tpm-crb) against the image changed to tpm-tis, without a write or a
// volume list (strict cloud).
func TestImagesDryRun(t *testing.T) {
	sess := scaleSession(t, scalecloud.Config{Guests: 1, Projects: 1, Hypervisors: 1})
	res, err := Images(context.Background(), sess, ImagesRequest{Images: []string{"win11-vtpm"}, Set: true, DryRun: true,
		Change: nova.ImageRequest{TPMVersion: "2.0", TPMModel: "tpm-tis"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) != 1 || len(nova.Writes(res.Plans[0].Changes)) == 0 {
		t.Fatalf("plans %+v", res.Plans)
	}
	if res.ConflictsErr != nil || len(res.Conflicts) != 1 || !strings.Contains(res.Conflicts[0], "vtpm.crb") {
		t.Errorf("conflicts %q (%v)", res.Conflicts, res.ConflictsErr)
	}
	if res.Stale != nil || res.StaleErr != nil {
		t.Errorf("a dry run counted volumes: %+v %v", res.Stale, res.StaleErr)
	}
}

func TestCarries(t *testing.T) {
	cs := []nova.Change{{Key: "hw_tpm_version", New: "2.0", Action: nova.Added}, {Key: "os_type", Old: "linux", Action: nova.Removed}}
	for _, c := range []struct {
		meta map[string]string
		want bool
	}{
		{map[string]string{"image_id": "i", "hw_tpm_version": "2.0"}, true},
		{map[string]string{"image_id": "i"}, false},
		{map[string]string{"image_id": "i", "hw_tpm_version": "2.0", "os_type": "linux"}, false},
	} {
		if got := Carries(c.meta, cs); got != c.want {
			t.Errorf("Carries(%v) = %v, want %v", c.meta, got, c.want)
		}
	}
}
