package flavor

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

func TestCreateVTPM(t *testing.T) {
	ctx := context.Background()
	spec := map[string]string{nova.FlavorTPMVersion: "2.0"}
	t.Run("existing flavor of that size converges", func(t *testing.T) {
		c := fakecloud.New(t).Standard() // no write answered: the fixture's flavor has the specs
		f, _ := compute.FindFlavor(ctx, (c.ServiceClient("compute/v2.1")), fakecloud.FixtureFlavor)
		_, created, err := CreateVTPM(ctx, (c.ServiceClient("compute/v2.1")), VTPMOpts{
			CreateOpts: compute.CreateOpts{Name: f.Name, VCPUs: f.VCPUs, RAM: f.RAM, Disk: f.Disk, Public: true}, Specs: spec}, nova.Zed)
		if err != nil || created || c.Count("POST") != 0 {
			t.Errorf("created %v err %v %v", created, err, c.Requests)
		}
		_, _, err = CreateVTPM(ctx, (c.ServiceClient("compute/v2.1")), VTPMOpts{
			CreateOpts: compute.CreateOpts{Name: f.Name, VCPUs: 64, RAM: f.RAM, Disk: f.Disk, Public: true}, Specs: spec}, nova.Zed)
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
		_, created, err := CreateVTPM(ctx, (c.ServiceClient("compute/v2.1")), VTPMOpts{
			CreateOpts: compute.CreateOpts{Name: "new", VCPUs: 1, RAM: 64, Disk: 1}, Projects: []string{"p1"}, Specs: spec}, nova.Zed)
		if err == nil || created || deleted != 1 || !strings.Contains(err.Error(), "nothing is left behind") {
			t.Errorf("created %v deleted %d err %v", created, deleted, err)
		}
	})
	t.Run("specs need admin", func(t *testing.T) {
		c := fakecloud.New(t).Standard()
		c.Handle("POST /compute/v2.1/flavors", fakecloud.JSON(200, `{"flavor":{"id":"f9","name":"new","vcpus":1,"ram":64,"disk":1}}`))
		c.Handle("POST /compute/v2.1/flavors/f9/os-extra_specs", fakecloud.JSON(403, `{"forbidden":{"message":"Policy doesn't allow"}}`))
		c.Handle("DELETE /compute/v2.1/flavors/f9", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
		_, created, err := CreateVTPM(ctx, (c.ServiceClient("compute/v2.1")), VTPMOpts{
			CreateOpts: compute.CreateOpts{Name: "new", VCPUs: 1, RAM: 64, Disk: 1, Public: true}, Specs: spec}, nova.Zed)
		if err == nil || !created || !strings.Contains(err.Error(), "admin role") || !strings.Contains(err.Error(), "WITHOUT its vTPM specs") {
			t.Errorf("created %v err %v", created, err)
		}
	})
}

// CreateVTPM refuses bad specs before anything is created, and a
// failed lookup is that failure, not a create.
func TestCreateVTPMRefusals(t *testing.T) {
	ctx := context.Background()
	bad := map[string]string{nova.FlavorTPMVersion: "2.0", nova.FlavorTPMModel: "tpm-xyz"}
	c := fakecloud.New(t).Standard()
	wc := (c.ServiceClient("compute/v2.1"))
	for _, name := range []string{"new", fakecloud.FixtureFlavor} {
		if _, _, err := CreateVTPM(ctx, wc, VTPMOpts{CreateOpts: compute.CreateOpts{Name: name, VCPUs: 1, RAM: 64, Disk: 1, Public: true}, Specs: bad}, nova.Zed); err == nil {
			t.Errorf("%s: bad specs accepted", name)
		}
	}
	c.Handle(fakecloud.Flavors, fakecloud.JSON(503, `{}`))
	if _, _, err := CreateVTPM(ctx, wc, VTPMOpts{CreateOpts: compute.CreateOpts{Name: "new"}}, nova.Zed); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("lookup 503: %v", err)
	}
	if n := c.Count("POST") + c.Count("PUT") + c.Count("DELETE"); n != 0 {
		t.Errorf("%d writes", n)
	}
	e := &SizeError{Name: "m1", Have: Size{1, 64, 1, true}, Want: Size{2, 64, 1, false}}
	if e.Error() != "flavor m1 exists with 1 vCPU, 64 MiB, 1 GiB, public, not 2 vCPU, 64 MiB, 1 GiB, private: Nova cannot resize a flavor in place" || !errors.Is(e, nova.ErrFlavorExists) {
		t.Errorf("%q", e.Error())
	}
}

// A 403 on a spec write says the admin role is needed.
func TestApplyPlansNeedsAdmin(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("PUT /compute/v2.1/flavors/f1/os-extra_specs/hw:tpm_model [compute 2.86]", fakecloud.JSON(403, `{"forbidden":{"message":"no"}}`))
	plans := []nova.ObjectPlan{{ID: "f1", Changes: []nova.Change{{Key: nova.FlavorTPMModel, Old: "tpm-crb", New: "tpm-tis", Action: nova.Replaced}}}}
	ApplyPlans(context.Background(), c.ServiceClient("compute/v2.1"), plans)
	if plans[0].Err == nil || !strings.Contains(plans[0].Err.Error(), "admin role") {
		t.Errorf("403 on a spec write: %v", plans[0].Err)
	}
}

// A flavor whose write never started (the run's context ended: Ctrl-C)
// is not reported as written: its plan carries the context's error.
// Before, its Err stayed nil and the changes table said "added".
func TestApplyPlansNotStartedIsNotWritten(t *testing.T) {
	c := fakecloud.New(t) // no route: a request sent fails the test
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	plans := []nova.ObjectPlan{
		{ID: "f1", Changes: []nova.Change{{Key: nova.FlavorTPMModel, New: "tpm-crb", Action: nova.Added}}},
		{ID: "f2", Changes: []nova.Change{{Key: nova.FlavorTPMModel, Old: "tpm-crb", New: "tpm-crb", Action: nova.Unchanged}}},
	}
	ApplyPlans(ctx, c.ServiceClient("compute/v2.1"), plans)
	if !errors.Is(plans[0].Err, context.Canceled) || plans[1].Err != nil {
		t.Errorf("errors %v, %v; want canceled for the unwritten change, none for the unchanged flavor", plans[0].Err, plans[1].Err)
	}
}
