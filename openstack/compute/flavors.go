package compute

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// SetFlavorSpecs writes only what differs: one POST for all new keys,
// one single-key PUT per changed key (never delete-then-create, so the
// flavor is never without its spec), one DELETE per removed key.
func SetFlavorSpecs(ctx context.Context, c *gophercloud.ServiceClient, id string, writes []nova.Change) error {
	c = atMicroversion(c, WriteMicroversion)
	added := flavors.ExtraSpecsOpts{}
	for _, w := range writes {
		if w.Action == nova.Added {
			added[w.Key] = w.New
		}
	}
	if len(added) > 0 {
		if _, err := flavors.CreateExtraSpecs(ctx, c, id, added).Extract(); err != nil {
			return err
		}
	}
	for _, w := range writes {
		var err error
		switch w.Action {
		case nova.Replaced:
			_, err = flavors.UpdateExtraSpec(ctx, c, id, flavors.ExtraSpecsOpts{w.Key: w.New}).Extract()
		case nova.Removed:
			err = flavors.DeleteExtraSpec(ctx, c, id, w.Key).ExtractErr()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// CreateOpts is a flavor's fixed part: name and size.
type CreateOpts struct {
	Name       string
	VCPUs, RAM int
	Disk       int
	Public     bool
}

// CreateFlavor creates a flavor (no extra specs yet).
func CreateFlavor(ctx context.Context, c *gophercloud.ServiceClient, o CreateOpts) (nova.CloudFlavor, error) {
	c = atMicroversion(c, WriteMicroversion)
	pub := o.Public
	f, err := flavors.Create(ctx, c, flavors.CreateOpts{Name: o.Name, VCPUs: o.VCPUs, RAM: o.RAM,
		Disk: gophercloud.IntToPointer(o.Disk), IsPublic: &pub}).Extract()
	if err != nil {
		return nova.CloudFlavor{}, err
	}
	return toCloudFlavor(*f), nil
}

// DeleteFlavor deletes a flavor.
func DeleteFlavor(ctx context.Context, c *gophercloud.ServiceClient, id string) error {
	c = atMicroversion(c, WriteMicroversion)
	return flavors.Delete(ctx, c, id).ExtractErr()
}

// AddFlavorAccess lets a project use a private flavor.
func AddFlavorAccess(ctx context.Context, c *gophercloud.ServiceClient, id, projectID string) error {
	c = atMicroversion(c, WriteMicroversion)
	_, err := flavors.AddAccess(ctx, c, id, flavors.AddAccessOpts{Tenant: projectID}).Extract()
	return err
}

// ServersUsingFlavor counts the servers of every project built from a
// flavor: one paginated id-only list, no per-server GET. It needs admin,
// and no microversion beyond the base (the flavor filter is 2.1's).
func ServersUsingFlavor(ctx context.Context, c *gophercloud.ServiceClient, flavorID string) (int, error) {
	c = atMicroversion(c, "")
	n := 0
	err := servers.ListSimple(c, servers.ListOpts{AllTenants: true, Flavor: flavorID, Limit: 1000}).EachPage(paging.Guard(ctx, "server list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := servers.ExtractServers(p)
		n += len(l)
		return true, err
	})
	return n, err
}
