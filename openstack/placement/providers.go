package placement

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/placement/v1/resourceproviders"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// RequiredMicroversion is the first that filters providers by trait
// (required=, 1.18).
const RequiredMicroversion = "1.18"

// Provider is one resource provider: a compute node's is named by its
// hypervisor hostname and has the hypervisor's ID as UUID.
type Provider struct {
	UUID string
	Name string
}

// ProvidersWithTrait lists the resource providers that have trait
// (GET /resource_providers?required=TRAIT): one list per trait, not one
// GET per provider. A trait this Placement does not know (400 "No such
// trait", an older os-traits) is no provider's: an empty list.
func ProvidersWithTrait(ctx context.Context, c *gophercloud.ServiceClient, trait string) ([]Provider, error) {
	pl := *c // the caller's client is shared: a copy speaks 1.18
	pl.Microversion = RequiredMicroversion
	pages, err := resourceproviders.List(&pl, resourceproviders.ListOpts{Required: trait}).AllPages(paging.Guard(ctx, "resource provider list"))
	if gophercloud.ResponseCodeIs(err, http.StatusBadRequest) {
		return []Provider{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing resource providers with %s: %w", trait, err)
	}
	rps, err := resourceproviders.ExtractResourceProviders(pages)
	if err != nil {
		return nil, err
	}
	out := make([]Provider, 0, len(rps))
	for _, rp := range rps {
		out = append(out, Provider{UUID: rp.UUID, Name: rp.Name})
	}
	return out, nil
}
