package hosts

import (
	"context"
	"sort"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/placement"
)

// List reads every hypervisor (one paginated list; its IDs are the
// resource providers' UUIDs) and the TPM traits of every provider with
// one Placement list per trait, not one GET per provider; hosts and each
// host's traits sorted. cc must be an admin's compute client.
func List(ctx context.Context, cc, pl *gophercloud.ServiceClient) ([]fleet.Host, error) {
	hvs, err := compute.ListHypervisors(ctx, cc)
	if err != nil {
		return nil, err
	}
	var hosts []fleet.Host // nil without hypervisors: the audit's JSON has always said null
	for _, h := range hvs {
		hosts = append(hosts, fleet.Host{Host: h.ServiceHost, Hypervisor: h.Hostname, RPUUID: h.ID, State: h.State, Status: h.Status, Traits: []string{}})
	}
	byRP := map[string]*fleet.Host{}
	for i := range hosts {
		byRP[hosts[i].RPUUID] = &hosts[i]
	}
	for _, trait := range fleet.TPMTraits {
		rps, err := placement.ProvidersWithTrait(ctx, pl, trait)
		if err != nil {
			return nil, err
		}
		for _, rp := range rps {
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
