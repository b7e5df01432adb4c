package compute

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/vtpmctl/vtpmctl/glance"
	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/nova"
)

// ServerMicroversion embeds each server's flavor with its extra specs
// (2.47): no flavor GET per server.
const ServerMicroversion = "2.47"

func ListVTPMGuests(ctx context.Context, computeClient, imageClient *gophercloud.ServiceClient, rel nova.Release, allTenants bool) (nova.Inventory, error) {
	c := atMicroversion(computeClient, ServerMicroversion)
	var srvs []servers.Server
	err := servers.List(c, servers.ListOpts{AllTenants: allTenants, Limit: 1000}).EachPage(paging.Guard(ctx, "server list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := servers.ExtractServers(p)
		srvs = append(srvs, l...)
		return true, err
	})
	if err != nil {
		return nova.Inventory{}, fmt.Errorf("listing servers: %w", err)
	}
	imgs := map[string]nova.Image{}
	if imageClient != nil {
		all, err := glance.ListImages(ctx, imageClient, glance.ImageListOpts{})
		if err != nil {
			return nova.Inventory{}, fmt.Errorf("listing images: %w", err)
		}
		for _, i := range all {
			imgs[i.ID] = i.Image
		}
	}
	inv := nova.Inventory{Others: map[string]nova.OtherServer{}, Servers: make(map[string]nova.Server, len(srvs))}
	for _, s := range srvs {
		fl := nova.Flavor{Name: str(s.Flavor["original_name"]), ExtraSpecs: map[string]string{}}
		if es, ok := s.Flavor["extra_specs"].(map[string]any); ok {
			for k, v := range es {
				fl.ExtraSpecs[k] = str(v)
			}
		}
		imgID := str(s.Image["id"])
		img, known := imgs[imgID]
		d := nova.Decide(fl, img, rel)
		facts := nova.Server{ID: s.ID, Name: s.Name, ProjectID: s.TenantID, Status: s.Status, Host: s.Host, Metadata: s.Metadata, ImageID: imgID, Flavor: fl}
		if known {
			facts.Image = &img
		}
		inv.Servers[s.ID] = facts
		if !d.VTPM {
			inv.Others[s.ID] = nova.OtherServer{Name: s.Name, ImageUnknown: imgID != "" && !known}
			continue
		}
		mode := d.SecretSecurity
		if mode == "" {
			mode = "user" // every guest before 2026.1 behaves as user mode
		}
		inv.Guests = append(inv.Guests, nova.VTPMGuest{ServerID: s.ID, Name: s.Name, ProjectID: s.TenantID, UserID: s.UserID, Status: s.Status,
			Host: s.Host, Version: d.Version, Model: d.Model, Mode: mode, FlavorSecretSecurity: fl.ExtraSpecs[nova.FlavorTPMSecretSecurity]})
	}
	return inv, nil
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
