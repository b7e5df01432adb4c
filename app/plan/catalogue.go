package plan

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// CatalogueFromCloud turns the cloud's flavors into a catalogue.
func CatalogueFromCloud(ctx context.Context, computeClient *gophercloud.ServiceClient) ([]migration.PlanFlavor, error) {
	fls, err := compute.ListFlavors(ctx, computeClient)
	if err != nil {
		return nil, err
	}
	out := make([]migration.PlanFlavor, 0, len(fls))
	for _, f := range fls {
		pub := f.IsPublic
		out = append(out, migration.PlanFlavor{Name: f.Name, VCPUs: f.VCPUs, RAM: f.RAM, Disk: f.Disk, Public: &pub,
			TPMVersion: f.ExtraSpecs[nova.FlavorTPMVersion], TPMModel: f.ExtraSpecs[nova.FlavorTPMModel], SecretSecurity: nova.SecretMode(f.ExtraSpecs[nova.FlavorTPMSecretSecurity])})
	}
	return out, nil
}
