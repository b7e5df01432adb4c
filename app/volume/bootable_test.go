package volume

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestVolumeSetRefusesDataVolume: volume set naming a volume that is not
// bootable (a data volume Nova boots nothing from) is refused with a
// NotBootableError naming it, beside a bootable one named with it, and
// nothing is written to either (the strict cloud serves no write and no
// flavor list). Before, the data volume's image metadata was written
// without a word, though --select skips such volumes. volume unset still
// reaches it: it cleans up what an earlier set left there.
func TestVolumeSetRefusesDataVolume(t *testing.T) {
	const list = "GET /volume/v3/" + fakecloud.ProjectID + "/volumes/detail?limit=1000&name="
	c := fakecloud.New(t).Standard()
	c.Handle(list+"data1 [volume 3.0]", fakecloud.JSON(200, `{"volumes":[{"id":"2c4e6a80-1b3d-4f5a-8c7e-9d1f3a5b7c03","name":"data1","bootable":"false",
		"volume_image_metadata":{"hw_tpm_version":"2.0"}}]}`))
	c.Handle(list+"boot1 [volume 3.0]", fakecloud.JSON(200, `{"volumes":[{"id":"9b2e7c40-3f1a-4d8b-8c6e-5a4d3c2b1a01","name":"boot1","bootable":"true",
		"volume_image_metadata":{"image_id":"i1"}}]}`))
	sess, err := cloud.Connect(context.Background(), cloud.Options{Cloud: "fake", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Tag(context.Background(), sess, TagRequest{Volumes: []string{"boot1", "data1"}, Set: true, Change: nova.ImageRequest{TPMVersion: "2.0"}})
	var nb *NotBootableError
	if !errors.As(err, &nb) || nb.Volume != "data1" || nb.ID != "2c4e6a80-1b3d-4f5a-8c7e-9d1f3a5b7c03" || !strings.Contains(err.Error(), "volume data1 (2c4e6a80-1b3d-4f5a-8c7e-9d1f3a5b7c03) is not bootable") {
		t.Fatalf("set on a data volume: %v, want a NotBootableError naming data1", err)
	}
	if n := c.Count("POST /volume"); n != 0 {
		t.Errorf("%d writes after the refusal", n)
	}
	res, err := Tag(context.Background(), sess, TagRequest{Volumes: []string{"data1"}, Change: nova.ImageRequest{}, DryRun: true})
	if err != nil || len(res.Plans) != 1 || len(nova.Writes(res.Plans[0].Changes)) != 1 {
		t.Errorf("unset on a data volume: %+v, %v, want hw_tpm_version removed", res.Plans, err)
	}
}
