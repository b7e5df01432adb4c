package predict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// The cloud's vTPM flavor asks for tpm-crb: a volume changed to tpm-tis
// conflicts with it (ERROR at scheduling), one changed to tpm-crb and a
// volume without vTPM properties do not; the plain flavor is not tried.
func TestVolumeConflicts(t *testing.T) {
	sess := scaleSession(t, scalecloud.Config{Guests: 1, Projects: 1, Hypervisors: 1})
	vol := func(id, model string) nova.BootVolume {
		meta := map[string]string{"image_id": "i"}
		if model != "" {
			meta["hw_tpm_version"], meta["hw_tpm_model"] = "2.0", model
		}
		return nova.BootVolume{ID: id, Name: id, Bootable: true, ImageMetadata: meta}
	}
	got, rel, err := VolumeConflicts(context.Background(), sess, ConflictRequest{Volumes: []nova.BootVolume{vol("tis", "tpm-tis"), vol("crb", "tpm-crb"), vol("plain", "")}})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Release != nova.Zed {
		t.Errorf("release %s", rel.Release)
	}
	if len(got) != 1 || got[0].Volume != "tis" || got[0].Flavor != "vtpm.crb" || got[0].Decision.Error.Exception != "NotImplementedError" {
		t.Fatalf("conflicts %+v", got)
	}
}
