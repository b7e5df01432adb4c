package compute

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/hypervisors"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// HypervisorMicroversion makes a hypervisor's ID its resource provider's
// UUID (2.53), so Placement's answers join the list without a lookup.
const HypervisorMicroversion = "2.53"

// Hypervisor is one compute node of the hypervisor list.
type Hypervisor struct {
	ID          string // its resource provider's UUID
	Hostname    string // hypervisor_hostname, the provider's name
	ServiceHost string // its nova-compute service's host
	State       string // up, down
	Status      string // enabled, disabled
}

// ListHypervisors reads every hypervisor, following the list's pages
// (GET /os-hypervisors/detail). c must be an admin's: the policy refuses
// the list to others.
func ListHypervisors(ctx context.Context, c *gophercloud.ServiceClient) ([]Hypervisor, error) {
	var out []Hypervisor
	err := hypervisors.List(atMicroversion(c, HypervisorMicroversion), hypervisors.ListOpts{}).EachPage(paging.Guard(ctx, "hypervisor list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := hypervisors.ExtractHypervisors(p)
		for _, h := range l {
			out = append(out, Hypervisor{ID: h.ID, Hostname: h.HypervisorHostname, ServiceHost: h.Service.Host, State: h.State, Status: h.Status})
		}
		return true, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing hypervisors (needs admin): %w", err)
	}
	return out, nil
}
