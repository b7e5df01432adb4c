package fleet

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/hypervisors"
	"github.com/gophercloud/gophercloud/v2/openstack/placement/v1/resourceproviders"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// Host is one compute node as the APIs see it.
type Host struct {
	Host       string   `json:"host"`       // nova-compute service host
	Hypervisor string   `json:"hypervisor"` // hypervisor_hostname = resource provider name
	RPUUID     string   `json:"resource_provider"`
	State      string   `json:"state"`  // up, down
	Status     string   `json:"status"` // enabled, disabled
	Traits     []string `json:"traits"` // TPM and secure boot traits in Placement
}

// TPMTraits are the traits the fleet audit reads from Placement.
var TPMTraits = []string{
	"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_CRB",
	"COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST",
	"COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT", "COMPUTE_SECURITY_UEFI_SECURE_BOOT", "OWNER_NOVA",
}

// ListHosts reads every hypervisor (one paginated list; compute >= 2.53 so
// IDs are the resource provider UUIDs) and the TPM traits of every
// provider with one `required=` list per trait, not one GET per provider.
// compute must be an admin's; placement needs microversion >= 1.18.
func ListHosts(ctx context.Context, compute, placement *gophercloud.ServiceClient) ([]Host, error) {
	c := *compute
	c.Microversion = "2.53"
	var hosts []Host
	err := hypervisors.List(&c, hypervisors.ListOpts{}).EachPage(paging.Guard(ctx, "hypervisor list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := hypervisors.ExtractHypervisors(p)
		for _, h := range l {
			hosts = append(hosts, Host{Host: h.Service.Host, Hypervisor: h.HypervisorHostname, RPUUID: h.ID, State: h.State, Status: h.Status, Traits: []string{}})
		}
		return true, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing hypervisors (needs admin): %w", err)
	}
	pl := *placement
	pl.Microversion = "1.18"
	byRP := map[string]*Host{}
	for i := range hosts {
		byRP[hosts[i].RPUUID] = &hosts[i]
	}
	for _, trait := range TPMTraits {
		pages, err := resourceproviders.List(&pl, resourceproviders.ListOpts{Required: trait}).AllPages(paging.Guard(ctx, "resource provider list"))
		if gophercloud.ResponseCodeIs(err, http.StatusBadRequest) {
			continue // "No such trait": an older os-traits; no provider can have it
		}
		if err != nil {
			return nil, fmt.Errorf("listing resource providers with %s: %w", trait, err)
		}
		rps, err := resourceproviders.ExtractResourceProviders(pages)
		if err != nil {
			return nil, err
		}
		for _, rp := range rps {
			if h := byRP[rp.UUID]; h != nil {
				h.Traits = append(h.Traits, trait)
			}
		}
	}
	for i := range hosts {
		sort.Strings(hosts[i].Traits)
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Host < hosts[j].Host })
	return hosts, nil
}
