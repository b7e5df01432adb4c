package image

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
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

// Show reads the image, settles the release and decides; an unknown
// image is said before the compute API is asked for its release.
func TestShowImage(t *testing.T) {
	c, sess := fakeSession(t)
	shown, err := Show(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureImage})
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
	if _, err := Show(context.Background(), sess, ShowRequest{Ref: "no-such-image"}); err == nil {
		t.Fatal("an unknown image was shown")
	}
	if askedCompute(c, before) {
		t.Error("asked compute after the image was not found")
	}
	// The compute API down and no --nova-release: the release is not
	// settled, so nothing is decided.
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`))
	if shown, err := Show(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureImage}); err == nil || shown.VTPM != (nova.Outcome{}) {
		t.Errorf("compute down: %+v %v", shown, err)
	}
	// A pinned release needs no compute API and is the one applied.
	shown, err = Show(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureImage, Release: nova.ReleaseEvidence{Flag: nova.Caracal}})
	if err != nil || shown.Release.Release != nova.Caracal || shown.NovaRelease.String() != nova.Caracal.Long() {
		t.Errorf("pinned: %+v %v", shown, err)
	}
}

// What an image alone gives a server on a release: the cell the show and
// its JSON carry.
func TestImageShownDecides(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props map[string]string
		rel   nova.Release
		vtpm  string
	}{
		{"no keys", nil, nova.Zed, "none"},
		{"2.0 default model", map[string]string{nova.ImageTPMVersion: "2.0"}, nova.Zed, "2.0 tpm-tis"},
		{"2.0 crb", map[string]string{nova.ImageTPMVersion: "2.0", nova.ImageTPMModel: "tpm-crb"}, nova.Zed, "2.0 tpm-crb"},
		{"model alone asks nothing", map[string]string{nova.ImageTPMModel: "tpm-crb"}, nova.Zed, "none"},
		{"crb with 1.2", map[string]string{nova.ImageTPMVersion: "1.2", nova.ImageTPMModel: "tpm-crb"}, nova.Zed,
			"refused: TPM model CRB is only valid with TPM version 2.0."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := nova.CloudImage{ID: "i1", Owner: "o", Visibility: "public", Status: "active", Image: nova.Image{Name: "n", Properties: tc.props}}
			s := shown(img, nova.ResolvedRelease{Release: tc.rel})
			if s.VTPM.String() != tc.vtpm || s.NovaRelease.String() != tc.rel.Long() || s.ID != "i1" || s.Owner != "o" || s.Status != "active" {
				t.Errorf("%+v, want vtpm %q", s, tc.vtpm)
			}
		})
	}
}

// Record and the JSON tags are one schema: the same fields, in the same
// order, with the same values (-f json of the Record is what scripts
// read; the struct's JSON must not drift from it).
func TestShownRecordIsItsJSON(t *testing.T) {
	img := shown(nova.CloudImage{ID: "i", Owner: "o", Visibility: "v", Status: "s",
		Image: nova.Image{Name: "n", Properties: map[string]string{nova.ImageTPMVersion: "2.0", "os_distro": "windows"}}}, nova.ResolvedRelease{Release: nova.Zed})
	for _, s := range []Shown{img, shown(nova.CloudImage{}, nova.ResolvedRelease{})} {
		outputtest.RecordIsJSON(t, s.Record(), s)
	}
}
