package predict

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/nova"
)

func fakeSession(t *testing.T) (*fakecloud.Cloud, *cloud.Session) {
	t.Helper()
	c := fakecloud.New(t).Standard()
	sess, err := cloud.Connect(context.Background(), cloud.Options{Cloud: "fake", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return c, sess
}

// ShowImage reads the image first: an unknown one is said before the
// compute API is asked for its release.
func TestShowImage(t *testing.T) {
	c, sess := fakeSession(t)
	shown, err := ShowImage(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureImage})
	if err != nil {
		t.Fatal(err)
	}
	if shown.Image.Name != fakecloud.FixtureImage || shown.Release.Release != nova.Zed {
		t.Errorf("image %q release %s", shown.Image.Name, shown.Release.Release)
	}
	before := len(c.Sent())
	if _, err := ShowImage(context.Background(), sess, ShowRequest{Ref: "no-such-image"}); err == nil {
		t.Fatal("an unknown image was shown")
	}
	for _, r := range c.Sent()[before:] {
		if strings.HasPrefix(r.Path, "/compute") {
			t.Errorf("asked %s %s after the image was not found", r.Method, r.Path)
		}
	}
}

// ListVolumes: one bootable list, selected by image metadata, with the
// release the cloud's compute API settles.
func TestListVolumes(t *testing.T) {
	c, sess := fakeSession(t)
	shown, err := ListVolumes(context.Background(), sess, ListRequest{Properties: map[string]string{"hw_tpm_version": "2.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.SentTo("GET", "/volume/v3/"+fakecloud.ProjectID+"/volumes/detail")); n != 1 {
		t.Errorf("%d volume lists, want 1", n)
	}
	if shown.Release.Release != nova.Zed {
		t.Errorf("release %s", shown.Release.Release)
	}
	if len(shown.Volumes) == 0 {
		t.Fatal("no volume selected: the fixture has a vTPM boot volume")
	}
	for _, v := range shown.Volumes {
		if v.ImageMetadata["hw_tpm_version"] != "2.0" || !bool(v.Bootable) {
			t.Errorf("selected %s: %v bootable %v", v.Name, v.ImageMetadata, v.Bootable)
		}
	}
}

// ShowVolume finds one volume (by ID here: one GET) and settles the
// release; an unknown volume is said before compute is asked.
func TestShowVolume(t *testing.T) {
	c, sess := fakeSession(t)
	vols, err := ListVolumes(context.Background(), sess, ListRequest{})
	if err != nil || len(vols.Volumes) == 0 {
		t.Fatalf("%v %d", err, len(vols.Volumes))
	}
	want := vols.Volumes[0]
	c.Handle("GET /volume/v3/"+fakecloud.ProjectID+"/volumes/"+want.ID, fakecloud.JSON(200, `{"volume":{"id":"`+want.ID+`","name":"`+want.Name+`","bootable":"true","volume_image_metadata":{"hw_tpm_version":"2.0"}}}`))
	shown, err := ShowVolume(context.Background(), sess, ShowRequest{Ref: want.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown.Volumes) != 1 || shown.Volumes[0].ID != want.ID || shown.Release.Release != nova.Zed {
		t.Errorf("%+v release %s", shown.Volumes, shown.Release.Release)
	}
}
