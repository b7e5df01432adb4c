package nova

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// VTPMGuest is a server Nova gives a vTPM.
type VTPMGuest struct {
	ServerID  string `json:"server_id"`
	Name      string `json:"name"`
	ProjectID string `json:"project_id"`
	UserID    string `json:"user_id"`
	Status    string `json:"status"`
	Host      string `json:"host,omitempty"`
	Version   string `json:"version"`
	Model     string `json:"model"`
	Mode      string `json:"mode"` // user, host, deployment
}

// ServerMicroversion embeds each server's flavor with its extra specs
// (2.47): no flavor GET per server.
const ServerMicroversion = "2.47"

// ListVTPMGuests lists servers in pages of 1000 and keeps those Nova gives
// a vTPM, by the flavor embedded in each server and one image list.
// Inventory is every listed server, sorted by what Nova makes of it.
type Inventory struct {
	Guests []VTPMGuest
	// Others have no vTPM request. ImageUnknown marks those whose image
	// could not be read (deleted, or not visible to the caller): their
	// image properties may have asked for a vTPM all the same.
	Others map[string]OtherServer
}

// OtherServer is a server without a (visible) vTPM request.
type OtherServer struct {
	Name         string `json:"name"`
	ImageUnknown bool   `json:"image_unknown"`
}

func ListVTPMGuests(ctx context.Context, compute, glance *gophercloud.ServiceClient, rel Release, allTenants bool) (Inventory, error) {
	c := *compute
	c.Microversion = ServerMicroversion
	var srvs []servers.Server
	err := servers.List(&c, servers.ListOpts{AllTenants: allTenants, Limit: 1000}).EachPage(paging.Guard(ctx, "server list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := servers.ExtractServers(p)
		srvs = append(srvs, l...)
		return true, err
	})
	if err != nil {
		return Inventory{}, fmt.Errorf("listing servers: %w", err)
	}
	imgs := map[string]Image{}
	if glance != nil {
		all, err := ListImages(ctx, glance, ImageListOpts{})
		if err != nil {
			return Inventory{}, fmt.Errorf("listing images: %w", err)
		}
		for _, i := range all {
			imgs[i.ID] = i.Image
		}
	}
	inv := Inventory{Others: map[string]OtherServer{}}
	for _, s := range srvs {
		fl := Flavor{Name: str(s.Flavor["original_name"]), ExtraSpecs: map[string]string{}}
		if es, ok := s.Flavor["extra_specs"].(map[string]any); ok {
			for k, v := range es {
				fl.ExtraSpecs[k] = str(v)
			}
		}
		imgID := str(s.Image["id"])
		img, known := imgs[imgID]
		d := Decide(fl, img, rel)
		if !d.VTPM {
			inv.Others[s.ID] = OtherServer{Name: s.Name, ImageUnknown: imgID != "" && !known}
			continue
		}
		mode := d.SecretSecurity
		if mode == "" {
			mode = "user" // every guest before 2026.1 behaves as user mode
		}
		inv.Guests = append(inv.Guests, VTPMGuest{ServerID: s.ID, Name: s.Name, ProjectID: s.TenantID, UserID: s.UserID, Status: s.Status,
			Host: s.Host, Version: d.Version, Model: d.Model, Mode: mode})
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
