package image

import (
	"context"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// A dry run plans the change and advises on the cloud's vTPM flavor
// (tpm-crb) against the image changed to tpm-tis, without a write or a
// volume list (strict cloud).
func TestImagesDryRun(t *testing.T) {
	sess := scaleSession(t, scale.Config{Guests: 1, Projects: 1, Hypervisors: 1})
	res, err := Tag(context.Background(), sess, TagRequest{Images: []string{"win11-vtpm"}, Set: true, DryRun: true,
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

// TestCarries: a volume carries a change only when it has every added
// key and none of the removed ones.
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

// scaleSession: the strict synthetic cloud (a request it does not serve
// fails the test).
func scaleSession(t *testing.T, cfg scale.Config) *cloud.Session {
	_, sess := scale.Session(t, cfg)
	return sess
}
