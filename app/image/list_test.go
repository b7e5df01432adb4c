package image

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
)

// List: one list with the property filter Glance applies (the
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
	l, err := List(context.Background(), sess, ListRequest{Properties: map[string]string{"os_distro": "windows"}, VTPM: nova.WithVTPM})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Images) != 1 || l.Images[0].Name != fakecloud.FixtureImage || l.Images[0].TPMModel != "tpm-crb" || l.Schema != ListSchema {
		t.Errorf("%+v", l)
	}
	if n := len(c.SentTo("GET", "/image/v2/images")); n != 1 {
		t.Errorf("%d image lists, want 1", n)
	}
	if l, err := List(context.Background(), sess, ListRequest{VTPM: nova.WithoutVTPM}); err != nil || len(l.Images) == 0 {
		t.Errorf("--no-vtpm: %+v %v", l, err)
	} else {
		for _, i := range l.Images {
			if i.TPMVersion != "" {
				t.Errorf("--no-vtpm kept %+v", i)
			}
		}
	}
	c.Handle(fakecloud.Images, fakecloud.JSON(500, `{"error":"boom"}`))
	if _, err := List(context.Background(), sess, ListRequest{}); err == nil {
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
		f    nova.VTPMFilter
		want string
	}{{nova.AnyVTPM, "abc"}, {nova.WithVTPM, "a"}, {nova.WithoutVTPM, "bc"}} {
		var got string
		for _, i := range listed(imgs, tc.f).Images {
			got += i.ID
		}
		if got != tc.want {
			t.Errorf("filter %d kept %q, want %q", tc.f, got, tc.want)
		}
	}
	if l := listed(nil, nova.AnyVTPM); l.Images == nil {
		t.Error("no image is nil")
	}
}

// A list's table and its JSON are one schema: the columns are the keys
// of the document's rows in order and each row's cells their values (-c
// names the same fields in every format).
func TestListTableIsItsJSON(t *testing.T) {
	full := Listed{ListSchema, []Row{{ID: "i", Name: "n", TPMVersion: "2.0", TPMModel: "m", WindowsProfile: "w", Visibility: "v", Owner: "o"}}}
	for _, l := range []Listed{full, {Images: []Row{}}} {
		outputtest.TableIsJSON(t, l.Table(), l.Images, "images")
	}
}
