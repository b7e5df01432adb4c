package hosts

import (
	"context"
	"sort"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/placement"
)

// List reads every hypervisor (one paginated list; its IDs are the
// resource providers' UUIDs) and the TPM traits of every provider with
// one Placement list per trait, not one GET per provider, all at once
// (none needs another's answer); hosts and each host's traits sorted. cc
// must be an admin's compute client.
func List(ctx context.Context, cc, pl *gophercloud.ServiceClient) ([]fleet.Host, error) {
	var hvs []compute.Hypervisor
	withTrait := make([][]placement.Provider, len(fleet.TPMTraits))
	errs := parallel.Do(ctx, 1+len(fleet.TPMTraits), 1+len(fleet.TPMTraits), func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			hvs, err = compute.ListHypervisors(ctx, cc)
		} else {
			withTrait[i-1], err = placement.ProvidersWithTrait(ctx, pl, fleet.TPMTraits[i-1])
		}
		return err
	})
	for _, err := range errs { // the hypervisors' first, as before
		if err != nil {
			return nil, err
		}
	}
	var hosts []fleet.Host // nil without hypervisors: the audit's JSON has always said null
	for _, h := range hvs {
		hosts = append(hosts, fleet.Host{Host: h.ServiceHost, Hypervisor: h.Hostname, RPUUID: h.ID, State: h.State, Status: h.Status, Traits: []string{}})
	}
	byRP := map[string]*fleet.Host{}
	for i := range hosts {
		byRP[hosts[i].RPUUID] = &hosts[i]
	}
	for t, trait := range fleet.TPMTraits {
		for _, rp := range withTrait[t] {
			if h := byRP[rp.UUID]; h != nil { // an ironic node's provider is no hypervisor's
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
