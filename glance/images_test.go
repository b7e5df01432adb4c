package glance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/nova"
)

// Against the local cloud's captured image list (fakecloud fixtures).

func TestFindImage(t *testing.T) {
	c := fakecloud.New(t).Standard()
	gl := c.ServiceClient("image")
	ctx := context.Background()
	img, err := FindImage(ctx, gl, fakecloud.FixtureImage)
	if err != nil || img.Properties[nova.ImageTPMVersion] != "2.0" || img.Owner == "" {
		t.Fatalf("by name: %+v %v", img, err)
	}
	byID, err := FindImage(ctx, gl, img.ID)
	if err != nil || byID.Name != fakecloud.FixtureImage || c.Count("GET /image/v2/images/"+img.ID) != 1 {
		t.Fatalf("by ID: %+v %v", byID, err)
	}
	var nf *nova.NotFoundError
	if _, err := FindImage(ctx, gl, "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"); !errors.As(err, &nf) {
		t.Errorf("unknown ID: %v", err)
	}
	c.Handle("GET /image/v2/images/*", fakecloud.JSON(500, `{"error":"boom"}`))
	if _, err := FindImage(ctx, gl, img.ID); err == nil || errors.As(err, &nf) {
		t.Errorf("a 500 is not 'not found': %v", err)
	}
}

func TestResolveImagesManyRefsOneList(t *testing.T) {
	c := fakecloud.New(t).Standard()
	gl := c.ServiceClient("image")
	all := c.FixtureObjects("images", "images")
	dup := map[string]any{"id": "dddddddd-0000-4000-8000-000000000000", "name": fakecloud.FixtureImage, "status": "active"}
	body := `{"images":[`
	for _, o := range append(all, dup) {
		body += `{"id":"` + o["id"].(string) + `","name":"` + o["name"].(string) + `","status":"active"},`
	}
	c.Handle("GET /image/v2/images", fakecloud.JSON(200, strings.TrimSuffix(body, ",")+`]}`))
	refs := []string{all[0]["id"].(string), "fx-plain", "a", "b", "c", fakecloud.FixtureImage}
	_, err := ResolveImages(context.Background(), gl, refs, nil)
	var amb *nova.AmbiguousError
	var nf *nova.NotFoundError
	if !errors.As(err, &amb) || !errors.As(err, &nf) {
		t.Fatalf("every problem at once: %v", err)
	}
	if n := c.Count("GET /image/v2/images?"); n > 4 { // one list, then a lookup per unlisted name
		t.Errorf("%d image lists for %d names", n, len(refs))
	}
}

func TestApplyImagePlansExplains403(t *testing.T) {
	c := fakecloud.New(t).Standard()
	c.Handle("PATCH /image/v2/images/*", fakecloud.JSON(403, `{"title":"Forbidden"}`))
	gl := c.ServiceClient("image")
	img, _ := FindImage(context.Background(), gl, fakecloud.FixtureImage)
	plans := []nova.ObjectPlan{{ID: img.ID, Name: img.Name, Changes: nova.Diff(img.Name, img.ID, img.Properties, map[string]string{"os_secure_boot": "required"}, nil)}}
	ApplyImagePlans(context.Background(), gl, plans, []nova.CloudImage{img})
	if plans[0].Err == nil || !strings.Contains(plans[0].Err.Error(), "belongs to project "+img.Owner) {
		t.Errorf("403: %v", plans[0].Err)
	}
	plans = []nova.ObjectPlan{{ID: img.ID, Changes: nova.Diff(img.Name, img.ID, img.Properties, map[string]string{nova.ImageTPMVersion: "2.0"}, nil)}}
	ApplyImagePlans(context.Background(), gl, plans, []nova.CloudImage{img})
	if plans[0].Err != nil || c.Count("PATCH") != 1 {
		t.Errorf("no change must send no write: %v %d", plans[0].Err, c.Count("PATCH"))
	}
}
