package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

func TestVTPMFilterKeep(t *testing.T) {
	for _, tc := range []struct {
		f         VTPMFilter
		with, not bool
	}{{AnyVTPM, true, true}, {WithVTPM, true, false}, {WithoutVTPM, false, true}} {
		if tc.f.Keep(true) != tc.with || tc.f.Keep(false) != tc.not {
			t.Errorf("%d: keeps vTPM %v, none %v", tc.f, tc.f.Keep(true), tc.f.Keep(false))
		}
	}
}

// ListImages: one list with the property filter Glance applies (the
// strict route fails a request without it), then --vtpm keeps the
// images that request one.
func TestListImages(t *testing.T) {
	c, sess := fakeSession(t)
	var windows []map[string]any
	for _, img := range c.FixtureObjects("images", "images") {
		if img["os_distro"] == "windows" {
			windows = append(windows, img)
		}
	}
	b, _ := json.Marshal(map[string]any{"images": windows})
	c.Handle("GET /image/v2/images?limit=1000&os_distro=windows", fakecloud.JSON(200, string(b)))
	l, err := ListImages(context.Background(), sess, ImageListRequest{Properties: map[string]string{"os_distro": "windows"}, VTPM: WithVTPM})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Images) != 1 || l.Images[0].Name != fakecloud.FixtureImage || l.Images[0].TPMModel != "tpm-crb" || l.Schema != ImageListSchema {
		t.Errorf("%+v", l)
	}
	if n := len(c.SentTo("GET", "/image/v2/images")); n != 1 {
		t.Errorf("%d image lists, want 1", n)
	}
	if l, err := ListImages(context.Background(), sess, ImageListRequest{VTPM: WithoutVTPM}); err != nil || len(l.Images) == 0 {
		t.Errorf("--no-vtpm: %+v %v", l, err)
	} else {
		for _, i := range l.Images {
			if i.TPMVersion != "" {
				t.Errorf("--no-vtpm kept %+v", i)
			}
		}
	}
	c.Handle(fakecloud.Images, fakecloud.JSON(500, `{"error":"boom"}`))
	if _, err := ListImages(context.Background(), sess, ImageListRequest{}); err == nil {
		t.Error("a failed image list listed")
	}
}

// An image requests a vTPM when it carries hw_tpm_version (a model alone
// asks for nothing); no image kept is [] in -f json, not null.
func TestImagesListed(t *testing.T) {
	imgs := []nova.CloudImage{
		{ID: "a", Image: nova.Image{Properties: map[string]string{nova.ImageTPMVersion: "2.0"}}},
		{ID: "b", Image: nova.Image{Properties: map[string]string{nova.ImageTPMModel: "tpm-crb"}}},
		{ID: "c"},
	}
	for _, tc := range []struct {
		f    VTPMFilter
		want string
	}{{AnyVTPM, "abc"}, {WithVTPM, "a"}, {WithoutVTPM, "bc"}} {
		var got string
		for _, i := range imagesListed(imgs, tc.f).Images {
			got += i.ID
		}
		if got != tc.want {
			t.Errorf("filter %d kept %q, want %q", tc.f, got, tc.want)
		}
	}
	if l := imagesListed(nil, AnyVTPM); l.Images == nil {
		t.Error("no image is nil")
	}
}

// ListVolumes: one bootable list, selected by image metadata, decided
// with the release the cloud's compute API settles.
func TestListVolumes(t *testing.T) {
	c, sess := fakeSession(t)
	res, err := ListVolumes(context.Background(), sess, ListRequest{Properties: map[string]string{"hw_tpm_version": "2.0"}})
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
	res, err = ListVolumes(context.Background(), sess, ListRequest{VTPM: WithoutVTPM, AllProjects: true})
	if err != nil || len(res.Volumes.Volumes) != 1 || res.Volumes.Volumes[0].Name != "fx-spare" || res.Volumes.Volumes[0].VTPM.String() != "none" {
		t.Errorf("--no-vtpm: %+v %v", res.Volumes, err)
	}
	c.Handle(fakecloud.Volumes, fakecloud.JSON(500, `{"error":"boom"}`))
	if _, err := ListVolumes(context.Background(), sess, ListRequest{}); err == nil {
		t.Error("a failed volume list listed")
	}
	// The release is settled first: compute down, no volume list sent.
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`))
	before := len(c.SentTo("GET", "/volume/v3/"+fakecloud.ProjectID+"/volumes/detail"))
	if _, err := ListVolumes(context.Background(), sess, ListRequest{}); err == nil {
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
		f    VTPMFilter
		want string
	}{{AnyVTPM, "abc"}, {WithVTPM, "a"}, {WithoutVTPM, "bc"}} {
		var got string
		for _, v := range volumesListed(vols, nova.Zed, tc.f).Volumes {
			got += v.ID
		}
		if got != tc.want {
			t.Errorf("filter %d kept %q, want %q", tc.f, got, tc.want)
		}
	}
	if l := volumesListed(nil, nova.Zed, AnyVTPM); l.Volumes == nil {
		t.Error("no volume is nil")
	}
}

// A list's table and its JSON are one schema: the columns are the keys
// of the document's rows in order and each row's cells their values (-c
// names the same fields in every format).
func TestListTableIsItsJSON(t *testing.T) {
	imgs := ImageList{ImageListSchema, []ListedImage{{ID: "i", Name: "n", TPMVersion: "2.0", TPMModel: "m", WindowsProfile: "w", Visibility: "v", Owner: "o"}}}
	vols := VolumeList{VolumeListSchema, []ListedVolume{{ID: "i", Name: "n", Status: "s", TPMVersion: "2.0", TPMModel: "m", VTPM: Outcome{Refused: "x"}, WindowsProfile: "w", ImageID: "g", Project: "p"}}}
	fls := FlavorList{FlavorListSchema, []ListedFlavor{{ID: "i", Name: "n", VCPUs: 2, RAM: 4096, Disk: 40, IsPublic: true, TPMVersion: "2.0", TPMModel: "m", SecretSecurity: "host"}}}
	rowsOf := map[string]func(output.Tabular) any{
		"images":  func(l output.Tabular) any { return l.(ImageList).Images },
		"volumes": func(l output.Tabular) any { return l.(VolumeList).Volumes },
		"flavors": func(l output.Tabular) any { return l.(FlavorList).Flavors },
	}
	for _, l := range []output.Tabular{imgs, vols, fls, ImageList{Images: []ListedImage{}}, VolumeList{Volumes: []ListedVolume{}}, FlavorList{Flavors: []ListedFlavor{}}} {
		tb := l.Table()
		var b bytes.Buffer
		b.WriteByte('[')
		for i, r := range tb.Rows {
			if i > 0 {
				b.WriteByte(',')
			}
			for k, f := range r {
				if f.Name != tb.Columns[k] {
					t.Errorf("row %d cell %d is %q under column %q", i, k, f.Name, tb.Columns[k])
				}
			}
			b.WriteString(recordJSON(t, r))
		}
		b.WriteByte(']')
		want, _ := json.Marshal(rowsOf[tb.Key](l))
		if b.String() != string(want) {
			t.Errorf("table\n%s\nJSON\n%s", b.String(), want)
		}
		if len(tb.Rows) == 0 {
			continue
		}
		var keys []map[string]json.RawMessage
		json.Unmarshal(want, &keys)
		if len(keys[0]) != len(tb.Columns) {
			t.Errorf("%d JSON keys, %d columns", len(keys[0]), len(tb.Columns))
		}
	}
}
