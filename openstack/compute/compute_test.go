package compute

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Against the local cloud's captured answers (fakecloud fixtures), with
// faults added where a real Nova will not give them on demand.

func TestDetectCloudRelease(t *testing.T) {
	c := fakecloud.New(t).Standard()
	cc := c.ServiceClient("compute/v2.1")
	ctx := context.Background()
	det, err := DetectCloudRelease(ctx, cc)
	if err != nil || det.Newest() != nova.Zed {
		t.Fatalf("release: %+v %v", det, err)
	}
	if u := versionDocURL("http://h/v2.1/0123abcd/"); u != "http://h/v2.1/" {
		t.Errorf("project in endpoint: %s", u)
	}
}

func TestFindFlavor(t *testing.T) {
	c := fakecloud.New(t).Standard()
	cc := ComputeClient(c.ServiceClient("compute/v2.1"))
	ctx := context.Background()
	f, err := FindFlavor(ctx, cc, fakecloud.FixtureFlavor)
	if err != nil || f.ExtraSpecs[nova.FlavorTPMModel] != "tpm-crb" {
		t.Fatalf("by name: %+v %v", f, err)
	}
	if byID, err := FindFlavor(ctx, cc, f.ID); err != nil || byID.Name != f.Name {
		t.Errorf("by ID: %+v %v", byID, err)
	}
	var nf *nova.NotFoundError
	if _, err := FindFlavor(ctx, cc, "nope"); !errors.As(err, &nf) {
		t.Errorf("unknown: %v", err)
	}
	got, err := ResolveFlavors(ctx, cc, []string{f.ID, fakecloud.FixtureFlavor, "nope", "also-nope"})
	if !errors.As(err, &nf) || got != nil && len(got) > 1 {
		t.Errorf("resolve: %v %v", got, err)
	}
}

func TestCreateVTPMFlavor(t *testing.T) {
	ctx := context.Background()
	spec := map[string]string{nova.FlavorTPMVersion: "2.0"}
	t.Run("existing flavor of that size converges", func(t *testing.T) {
		c := fakecloud.New(t).Standard() // no write answered: the fixture's flavor has the specs
		f, _ := FindFlavor(ctx, ComputeClient(c.ServiceClient("compute/v2.1")), fakecloud.FixtureFlavor)
		_, created, err := CreateVTPMFlavor(ctx, WriteClient(c.ServiceClient("compute/v2.1")), VTPMFlavorOpts{
			CreateOpts: CreateOpts{Name: f.Name, VCPUs: f.VCPUs, RAM: f.RAM, Disk: f.Disk, Public: true}, Specs: spec}, nova.Zed)
		if err != nil || created || c.Count("POST") != 0 {
			t.Errorf("created %v err %v %v", created, err, c.Requests)
		}
		_, _, err = CreateVTPMFlavor(ctx, WriteClient(c.ServiceClient("compute/v2.1")), VTPMFlavorOpts{
			CreateOpts: CreateOpts{Name: f.Name, VCPUs: 64, RAM: f.RAM, Disk: f.Disk, Public: true}, Specs: spec}, nova.Zed)
		if !errors.Is(err, nova.ErrFlavorExists) {
			t.Errorf("another size: %v", err)
		}
	})
	t.Run("private flavor, access refused, rolled back", func(t *testing.T) {
		c := fakecloud.New(t).Standard()
		c.Handle("POST /compute/v2.1/flavors", fakecloud.JSON(200, `{"flavor":{"id":"f9","name":"new","vcpus":1,"ram":64,"disk":1,"os-flavor-access:is_public":false}}`))
		c.Handle("POST /compute/v2.1/flavors/f9/action", fakecloud.JSON(403, `{"forbidden":{"message":"no"}}`))
		deleted := 0
		c.Handle("DELETE /compute/v2.1/flavors/f9", func(w http.ResponseWriter, r *http.Request) { deleted++; w.WriteHeader(202) })
		_, created, err := CreateVTPMFlavor(ctx, WriteClient(c.ServiceClient("compute/v2.1")), VTPMFlavorOpts{
			CreateOpts: CreateOpts{Name: "new", VCPUs: 1, RAM: 64, Disk: 1}, Projects: []string{"p1"}, Specs: spec}, nova.Zed)
		if err == nil || created || deleted != 1 || !strings.Contains(err.Error(), "nothing is left behind") {
			t.Errorf("created %v deleted %d err %v", created, deleted, err)
		}
	})
	t.Run("specs need admin", func(t *testing.T) {
		c := fakecloud.New(t).Standard()
		c.Handle("POST /compute/v2.1/flavors", fakecloud.JSON(200, `{"flavor":{"id":"f9","name":"new","vcpus":1,"ram":64,"disk":1}}`))
		c.Handle("POST /compute/v2.1/flavors/f9/os-extra_specs", fakecloud.JSON(403, `{"forbidden":{"message":"Policy doesn't allow"}}`))
		c.Handle("DELETE /compute/v2.1/flavors/f9", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
		_, created, err := CreateVTPMFlavor(ctx, WriteClient(c.ServiceClient("compute/v2.1")), VTPMFlavorOpts{
			CreateOpts: CreateOpts{Name: "new", VCPUs: 1, RAM: 64, Disk: 1, Public: true}, Specs: spec}, nova.Zed)
		if err == nil || !created || !strings.Contains(err.Error(), "admin role") || !strings.Contains(err.Error(), "WITHOUT its vTPM specs") {
			t.Errorf("created %v err %v", created, err)
		}
	})
}

// The count is of the flavor's servers only: the flavor filter must
// reach Nova (the fake answers only a list that carries it, and the
// request is asserted), or every server of the cloud would be counted.
func TestServersUsingFlavor(t *testing.T) {
	c := fakecloud.New(t).Standard()
	c.Handle("GET /compute/v2.1/servers?all_tenants=true&flavor=f1&limit=1000", fakecloud.JSON(200, `{"servers":[{"id":"s1"},{"id":"s2"}]}`))
	cc := c.ServiceClient("compute/v2.1")
	n, err := ServersUsingFlavor(context.Background(), cc, "f1")
	if err != nil || n != 2 {
		t.Errorf("servers: %d %v", n, err)
	}
	sent := c.SentTo("GET", "/compute/v2.1/servers")
	if len(sent) != 1 || sent[0].Query.Get("flavor") != "f1" || sent[0].Query.Get("all_tenants") != "true" {
		t.Errorf("one list filtered by flavor f1 over all projects: %v", sent)
	}
}
