package glance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Property selection happens in Glance: the filter must be sent (the
// route declares it), and the fake filters as Glance does.
func TestListImagesByProperty(t *testing.T) {
	c := fakecloud.New(t).Standard()
	images := c.FixtureObjects("images", "images")
	c.Handle("GET /image/v2/images?limit=1000&os_distro=windows", fakecloud.JSON(200, `{"images":[{"id":"`+images[1]["id"].(string)+`","name":"`+fakecloud.FixtureImage+`","os_distro":"windows","hw_tpm_version":"2.0","min_ram":0,"gone":null}]}`))
	gl := c.ServiceClient("image")
	got, err := ListImages(context.Background(), gl, ImageListOpts{Properties: map[string]string{"os_distro": "windows"}})
	if err != nil || len(got) != 1 || got[0].Name != fakecloud.FixtureImage || got[0].Properties["os_distro"] != "windows" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, kept := got[0].Properties["gone"]; kept {
		t.Errorf("a null property is not a value: %v", got[0].Properties)
	}
	// a few names: one lookup each, by ID or Glance's eq: name filter;
	// the selection adds its images once
	all, err := ResolveImages(context.Background(), gl, []string{fakecloud.FixtureImage, images[1]["id"].(string)}, map[string]string{"os_distro": "windows"})
	if err != nil || len(all) != 1 {
		t.Errorf("resolve: %+v %v", all, err)
	}
	var nf *nova.NotFoundError
	if _, err := ResolveImages(context.Background(), gl, []string{"nope"}, nil); !errors.As(err, &nf) {
		t.Errorf("unknown: %v", err)
	}
	c.Handle("GET /image/v2/images?limit=1000&os_distro=windows", fakecloud.JSON(500, `{}`))
	if _, err := ResolveImages(context.Background(), gl, nil, map[string]string{"os_distro": "windows"}); err == nil {
		t.Error("a failed selection resolved")
	}
}

// Two images of one name are ambiguous, with both IDs; a failed name
// lookup is that failure.
func TestFindImageAmbiguousAndFailed(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("GET /image/v2/images?limit=100&name=eq:dup", fakecloud.JSON(200, `{"images":[{"id":"b","name":"dup"},{"id":"a","name":"dup"},{"id":"c","name":"dup2"}]}`))
	var amb *nova.AmbiguousError
	_, err := FindImage(context.Background(), c.ServiceClient("image"), "dup")
	if !errors.As(err, &amb) || strings.Join(amb.IDs, ",") != "a,b" {
		t.Errorf("%v", err)
	}
	c.Handle("GET /image/v2/images?limit=100&name=eq:dup", fakecloud.JSON(503, `{}`))
	var nf *nova.NotFoundError
	if _, err := FindImage(context.Background(), c.ServiceClient("image"), "dup"); err == nil || errors.As(err, &nf) {
		t.Errorf("503: %v", err)
	}
}

// Unchanged keys are not written; nothing to write sends nothing; a
// write error other than 403 is returned as it is.
func TestUpdateImagePropertiesSkipsUnchanged(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("PATCH /image/v2/images/i1", fakecloud.JSON(500, `{}`))
	gl := c.ServiceClient("image")
	if err := UpdateImageProperties(context.Background(), gl, "i1", []nova.Change{{Key: "a", Old: "1", New: "1", Action: nova.Unchanged}}); err != nil || len(c.Sent()) != 0 {
		t.Errorf("unchanged only: %v, %d requests", err, len(c.Sent()))
	}
	plans := []nova.ObjectPlan{{ID: "i1", Changes: []nova.Change{{Key: "a", Old: "1", New: "1", Action: nova.Unchanged}, {Key: "b", New: "2", Action: nova.Added}}}}
	ApplyImagePlans(context.Background(), gl, plans, []nova.CloudImage{{ID: "i1"}})
	if s := c.Sent(); plans[0].Err == nil || strings.Contains(plans[0].Err.Error(), "belongs to project") || len(s) != 1 || s[0].Body != `[{"op":"add","path":"/b","value":"2"}]` {
		t.Errorf("%v %v", plans[0].Err, s)
	}
}
