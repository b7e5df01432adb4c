package predict

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
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

// askedCompute says whether any request after the first `before` went to
// the compute API.
func askedCompute(c *fakecloud.Cloud, before int) bool {
	for _, r := range c.Sent()[before:] {
		if strings.HasPrefix(r.Path, "/compute") {
			return true
		}
	}
	return false
}

// ShowImage reads the image, settles the release and decides; an unknown
// image is said before the compute API is asked for its release.
func TestShowImage(t *testing.T) {
	c, sess := fakeSession(t)
	shown, err := ShowImage(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureImage})
	if err != nil {
		t.Fatal(err)
	}
	if shown.Name != fakecloud.FixtureImage || shown.Release.Release != nova.Zed || shown.NovaRelease.String() != nova.Zed.Long() {
		t.Errorf("image %q release %s %q", shown.Name, shown.Release.Release, shown.NovaRelease)
	}
	if shown.VTPM.String() != "2.0 tpm-crb" || !strings.HasPrefix(shown.WindowsProfile, "partial: missing ") || shown.Properties[nova.ImageTPMModel] != "tpm-crb" {
		t.Errorf("decided %+v", shown)
	}
	before := len(c.Sent())
	if _, err := ShowImage(context.Background(), sess, ShowRequest{Ref: "no-such-image"}); err == nil {
		t.Fatal("an unknown image was shown")
	}
	if askedCompute(c, before) {
		t.Error("asked compute after the image was not found")
	}
	// The compute API down and no --nova-release: the release is not
	// settled, so nothing is decided.
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`))
	if shown, err := ShowImage(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureImage}); err == nil || shown.VTPM != (Outcome{}) {
		t.Errorf("compute down: %+v %v", shown, err)
	}
	// A pinned release needs no compute API and is the one applied.
	shown, err = ShowImage(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureImage, Release: nova.ReleaseEvidence{Flag: nova.Caracal}})
	if err != nil || shown.Release.Release != nova.Caracal || shown.NovaRelease.String() != nova.Caracal.Long() {
		t.Errorf("pinned: %+v %v", shown, err)
	}
}

// ShowVolume finds one volume (by ID here: one GET), settles the release
// and decides as for a server booted from it; an unknown volume is said
// before compute is asked.
func TestShowVolume(t *testing.T) {
	c, sess := fakeSession(t)
	const id = "9b2e7c40-3f1a-4d8b-8c6e-5a4d3c2b1a01"
	c.Handle("GET /volume/v3/"+fakecloud.ProjectID+"/volumes/* [volume 3.0]", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, id) {
			fakecloud.JSON(200, `{"volume":{"id":"`+id+`","name":"boot","bootable":"true","volume_image_metadata":{"hw_tpm_version":"2.0","image_id":"img1","checksum":"x"}}}`)(w, r)
			return
		}
		fakecloud.JSON(404, `{"itemNotFound":{"code":404}}`)(w, r)
	})
	// an ID Cinder does not know may still be a name
	c.Handle("GET /volume/v3/"+fakecloud.ProjectID+"/volumes/detail?limit=1000&name=* [volume 3.0]", fakecloud.JSON(200, `{"volumes":[]}`))
	shown, err := ShowVolume(context.Background(), sess, ShowRequest{Ref: id})
	if err != nil {
		t.Fatal(err)
	}
	if shown.ID != id || shown.Release.Release != nova.Zed || shown.VTPM.String() != "2.0 tpm-tis" || shown.ImageID != "img1" || !shown.Bootable {
		t.Errorf("%+v", shown)
	}
	// no attachment is [], not null, in -f json
	if shown.Attachments == nil || len(shown.Attachments) != 0 {
		t.Errorf("attachments %#v", shown.Attachments)
	}
	before := len(c.Sent())
	if _, err := ShowVolume(context.Background(), sess, ShowRequest{Ref: "0a1b2c3d-0000-4000-8000-000000000009"}); err == nil {
		t.Fatal("an unknown volume was shown")
	}
	if askedCompute(c, before) {
		t.Error("asked compute after the volume was not found")
	}
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`))
	if shown, err := ShowVolume(context.Background(), sess, ShowRequest{Ref: id}); err == nil || shown.VTPM != (Outcome{}) {
		t.Errorf("compute down: %+v %v", shown, err)
	}
}
