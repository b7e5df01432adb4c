package glance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
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

// TestUpdateImagePropertiesPointerSegments: each key is one JSON-pointer
// segment (RFC 6901), so "tags/-" is a property, never the image's tags;
// a core attribute is refused before any request.
func TestUpdateImagePropertiesPointerSegments(t *testing.T) {
	c := fakecloud.New(t)
	var bodies []string
	c.Handle("PATCH /image/v2/images/*", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		fakecloud.JSON(200, `{"id":"i1","name":"x","status":"active"}`)(w, r)
	})
	gl := c.ServiceClient("image")
	cases := []struct {
		change nova.Change
		want   string
	}{
		{nova.Change{Key: "tags/-", New: "x", Action: nova.Added}, `[{"op":"add","path":"/tags~1-","value":"x"}]`},
		{nova.Change{Key: "a~b/c", New: "y", Action: nova.Replaced}, `[{"op":"replace","path":"/a~0b~1c","value":"y"}]`},
		{nova.Change{Key: "~1", Action: nova.Removed}, `[{"op":"remove","path":"/~01"}]`},
		{nova.Change{Key: "os_secure_boot", New: "required", Action: nova.Added}, `[{"op":"add","path":"/os_secure_boot","value":"required"}]`},
	}
	for _, tc := range cases {
		bodies = nil
		if err := UpdateImageProperties(context.Background(), gl, "i1", []nova.Change{tc.change}); err != nil || len(bodies) != 1 || bodies[0] != tc.want {
			t.Errorf("%q: %v %q, want %s", tc.change.Key, err, bodies, tc.want)
		}
	}
	for _, k := range []string{"visibility", "owner", "tags", "locations", "os_glance_x", ""} {
		bodies = nil
		err := UpdateImageProperties(context.Background(), gl, "i1", []nova.Change{{Key: "ok", New: "1", Action: nova.Added}, {Key: k, New: "public", Action: nova.Added}})
		if err == nil || len(bodies) != 0 || !strings.Contains(err.Error(), fmt.Sprintf("%q", k)) {
			t.Errorf("%q: %v, %d requests", k, err, len(bodies))
		}
	}
}
