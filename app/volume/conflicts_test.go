package volume

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// The cloud's vTPM flavor asks for tpm-crb: a volume changed to tpm-tis
// conflicts with it (ERROR at scheduling), one changed to tpm-crb and a
// volume without vTPM properties do not; the plain flavor is not tried.
func TestVolumeConflicts(t *testing.T) {
	sess := scaleSession(t, scale.Config{Guests: 1, Projects: 1, Hypervisors: 1})
	vol := func(id, model string) nova.BootVolume {
		meta := map[string]string{"image_id": "i"}
		if model != "" {
			meta["hw_tpm_version"], meta["hw_tpm_model"] = "2.0", model
		}
		return nova.BootVolume{ID: id, Name: id, Bootable: true, ImageMetadata: meta}
	}
	got, rel, err := Conflicts(context.Background(), sess, ConflictRequest{Volumes: []nova.BootVolume{vol("tis", "tpm-tis"), vol("crb", "tpm-crb"), vol("plain", "")}})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Release != nova.Zed {
		t.Errorf("release %s", rel.Release)
	}
	if len(got) != 1 || got[0].Volume != "tis" || got[0].Flavor != "vtpm.crb" || got[0].Decision.Error.Exception != nova.ExceptionNotImplementedError {
		t.Fatalf("conflicts %+v", got)
	}
}

// scaleSession: the strict synthetic cloud (a request it does not serve
// fails the test).
func scaleSession(t *testing.T, cfg scale.Config) *cloud.Session {
	_, sess := scale.Session(t, cfg)
	return sess
}
