package image

import (
	"context"
	"errors"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestImagesSelectRechecked: a Glance that ignored the selector's filter
// answered with every image, and image unset --select os_distro=windows
// planned fx-plain too (before: cirros proposed as Windows). Each image
// returned is matched again: fx-plain is left out and counted.
func TestImagesSelectRechecked(t *testing.T) {
	c, sess := fakeSession(t)
	c.Handle("GET /image/v2/images?limit=1000&os_distro=windows", fakecloud.JSON(200, c.Fixture("images")))
	res, err := Tag(context.Background(), sess, TagRequest{Selector: map[string]string{"os_distro": "windows"}, DryRun: true,
		Change: nova.ImageRequest{Windows: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) != 1 || res.Plans[0].Name != "fx-win11" || res.Mismatched != 1 {
		t.Errorf("plans %+v, mismatched %d: want fx-win11 only and 1 left out", res.Plans, res.Mismatched)
	}
	if n := len(c.SentTo("GET", "/image/v2/images")); n != 1 {
		t.Errorf("%d image lists, want the one filtered list", n)
	}
}

// TestImagesConfirm: the confirmation is asked after planning, with the
// plans, only when something would be written; refused, nothing is.
func TestImagesConfirm(t *testing.T) {
	refused := errors.New("not confirmed")
	for _, tc := range []struct {
		name   string
		change nova.ImageRequest
		asked  bool
	}{
		{"a change", nova.ImageRequest{TPMVersion: "2.0", TPMModel: "tpm-tis"}, true},
		{"nothing to write", nova.ImageRequest{TPMVersion: "2.0", TPMModel: "tpm-crb"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sess := fakeSession(t)
			asked := 0
			_, err := Tag(context.Background(), sess, TagRequest{Images: []string{"fx-win11"}, Set: true, Change: tc.change,
				Release: nova.ReleaseEvidence{Flag: nova.Zed},
				Confirm: func(_ context.Context, plans []nova.ObjectPlan) error {
					asked++
					if len(plans) != 1 || plans[0].Name != "fx-win11" {
						t.Errorf("asked with %+v", plans)
					}
					return refused
				}})
			if tc.asked != (asked == 1) || tc.asked != errors.Is(err, refused) {
				t.Errorf("asked %d times, err %v", asked, err)
			}
			if n := len(c.SentTo("PATCH", "/image/v2/images/15efa622-9c42-48a2-b81c-486deb166f12")); n != 0 {
				t.Errorf("%d writes", n)
			}
		})
	}
}

// TestSelected: fields by their API names, properties otherwise; a
// key that is neither matches nothing.
func TestSelected(t *testing.T) {
	img := nova.CloudImage{ID: "i1", Status: "active", Visibility: "public", Image: nova.Image{Name: "win", Properties: map[string]string{"os_distro": "windows"}}}
	for _, tc := range []struct {
		sel  map[string]string
		want bool
	}{
		{map[string]string{"os_distro": "windows"}, true},
		{map[string]string{"os_distro": "windows", "visibility": "public", "name": "win"}, true},
		{map[string]string{"os_distro": "ubuntu"}, false},
		{map[string]string{"size_min": "1"}, false},
		{map[string]string{"status": "queued"}, false},
	} {
		if got := Selected(img, tc.sel); got != tc.want {
			t.Errorf("Selected(%v) = %v, want %v", tc.sel, got, tc.want)
		}
	}
}
