package volume

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

var zed = nova.ResolvedRelease{Release: nova.Zed}

// A server booted from a volume: Nova's volume rules (not bootable is
// refused first; the image attributes Cinder copied are not properties),
// and every attachment as "SERVER DEVICE".
func TestVolumeShownDecides(t *testing.T) {
	win := map[string]string{nova.ImageTPMVersion: "2.0", "os_distro": "windows", "image_id": "img1", "checksum": "c"}
	for _, tc := range []struct {
		name           string
		v              cinder.Volume
		vtpm, profile  string
		attached       []string
		version, model string
	}{
		{"not bootable", cinder.Volume{ID: "v1"}, "refused: Block Device v1 is not bootable.", "none", []string{}, "", ""},
		{"windows, partial", cinder.Volume{ID: "v2", Bootable: true, ImageMetadata: win,
			Attachments: []cinder.Attachment{{ServerID: "s1", Device: "/dev/vda"}, {ServerID: "s2", Device: "/dev/vdb"}}},
			"2.0 tpm-tis", "partial: missing ", []string{"s1 /dev/vda", "s2 /dev/vdb"}, "2.0", ""},
		{"no metadata", cinder.Volume{ID: "v3", Bootable: true}, "none", "none", []string{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := shown(tc.v, zed)
			if s.VTPM.String() != tc.vtpm || len(s.WindowsProfile) < len(tc.profile) || s.WindowsProfile[:len(tc.profile)] != tc.profile ||
				s.TPMVersion != tc.version || s.TPMModel != tc.model || s.Bootable != bool(tc.v.Bootable) {
				t.Errorf("%+v", s)
			}
			if s.Attachments == nil || len(s.Attachments) != len(tc.attached) {
				t.Fatalf("attachments %#v, want %q", s.Attachments, tc.attached)
			}
			for i := range tc.attached {
				if s.Attachments[i] != tc.attached[i] {
					t.Errorf("attachments %q, want %q", s.Attachments, tc.attached)
				}
			}
			if s.ImageID != tc.v.ImageMetadata["image_id"] || s.Project != tc.v.ProjectID {
				t.Errorf("image %q project %q", s.ImageID, s.Project)
			}
		})
	}
}

// Record and the JSON tags are one schema: the same fields, in the same
// order, with the same values (-f json of the Record is what scripts
// read; the struct's JSON must not drift from it).
func TestShownRecordIsItsJSON(t *testing.T) {
	vol := shown(cinder.Volume{ID: "v", Name: "n", Status: "s", ProjectID: "p", Bootable: true,
		ImageMetadata: map[string]string{nova.ImageTPMVersion: "2.0", "image_id": "i"}, Attachments: []cinder.Attachment{{ServerID: "s", Device: "d"}}}, zed)
	for _, s := range []Shown{vol, shown(cinder.Volume{}, zed)} {
		outputtest.RecordIsJSON(t, s.Record(), s)
	}
}

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

// Show finds one volume (by ID here: one GET), settles the release
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
	shown, err := Show(context.Background(), sess, ShowRequest{Ref: id})
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
	if _, err := Show(context.Background(), sess, ShowRequest{Ref: "0a1b2c3d-0000-4000-8000-000000000009"}); err == nil {
		t.Fatal("an unknown volume was shown")
	}
	if askedCompute(c, before) {
		t.Error("asked compute after the volume was not found")
	}
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`))
	if shown, err := Show(context.Background(), sess, ShowRequest{Ref: id}); err == nil || shown.VTPM != (nova.Outcome{}) {
		t.Errorf("compute down: %+v %v", shown, err)
	}
}
