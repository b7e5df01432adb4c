package volume

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

// List: one bootable list, selected by image metadata, decided
// with the release the cloud's compute API settles.
func TestListVolumes(t *testing.T) {
	c, sess := fakeSession(t)
	res, err := List(context.Background(), sess, ListRequest{Properties: map[string]string{"hw_tpm_version": "2.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.SentTo("GET", "/volume/v3/"+fakecloud.ProjectID+"/volumes/detail")); n != 1 {
		t.Errorf("%d volume lists, want 1", n)
	}
	if res.Release.Release != nova.Zed {
		t.Errorf("release %s", res.Release.Release)
	}
	if len(res.Volumes.Volumes) != 1 || res.Volumes.Volumes[0].Name != "fx-win11-boot" || res.Volumes.Volumes[0].VTPM.String() != "2.0 tpm-crb" {
		t.Fatalf("%+v", res.Volumes)
	}
	res, err = List(context.Background(), sess, ListRequest{VTPM: nova.WithoutVTPM, AllProjects: true})
	if err != nil || len(res.Volumes.Volumes) != 1 || res.Volumes.Volumes[0].Name != "fx-spare" || res.Volumes.Volumes[0].VTPM.String() != "none" {
		t.Errorf("--no-vtpm: %+v %v", res.Volumes, err)
	}
	c.Handle(fakecloud.Volumes, fakecloud.JSON(500, `{"error":"boom"}`))
	if _, err := List(context.Background(), sess, ListRequest{}); err == nil {
		t.Error("a failed volume list listed")
	}
	// The release is settled first: compute down, no volume list sent.
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`))
	before := len(c.SentTo("GET", "/volume/v3/"+fakecloud.ProjectID+"/volumes/detail"))
	if _, err := List(context.Background(), sess, ListRequest{}); err == nil {
		t.Error("listed without a release")
	}
	if n := len(c.SentTo("GET", "/volume/v3/"+fakecloud.ProjectID+"/volumes/detail")); n != before {
		t.Errorf("listed volumes before the release was settled")
	}
}

// --vtpm keeps the volumes Nova gives a vTPM: a refused one gives none.
func TestVolumesListed(t *testing.T) {
	vols := []cinder.Volume{
		{ID: "a", Bootable: true, ImageMetadata: map[string]string{nova.ImageTPMVersion: "2.0"}},
		{ID: "b", Bootable: true, ImageMetadata: map[string]string{nova.ImageTPMVersion: "1.2", nova.ImageTPMModel: "tpm-crb"}},
		{ID: "c", Bootable: true},
	}
	for _, tc := range []struct {
		f    nova.VTPMFilter
		want string
	}{{nova.AnyVTPM, "abc"}, {nova.WithVTPM, "a"}, {nova.WithoutVTPM, "bc"}} {
		var got string
		for _, v := range listed(vols, nova.Zed, tc.f).Volumes {
			got += v.ID
		}
		if got != tc.want {
			t.Errorf("filter %d kept %q, want %q", tc.f, got, tc.want)
		}
	}
	if l := listed(nil, nova.Zed, nova.AnyVTPM); l.Volumes == nil {
		t.Error("no volume is nil")
	}
}

// A list's table and its JSON are one schema: the columns are the keys
// of the document's rows in order and each row's cells their values (-c
// names the same fields in every format).
func TestListTableIsItsJSON(t *testing.T) {
	full := Listed{ListSchema, []Row{{ID: "i", Name: "n", Status: "s", TPMVersion: "2.0", TPMModel: "m", VTPM: nova.Outcome{Refused: "x"}, WindowsProfile: "w", ImageID: "g", Project: "p"}}}
	for _, l := range []Listed{full, {Volumes: []Row{}}} {
		outputtest.TableIsJSON(t, l.Table(), l.Volumes, "volumes")
	}
}
