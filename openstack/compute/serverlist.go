package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// ServerMicroversion embeds each server's flavor with its extra specs
// (2.47): no flavor GET per server.
const ServerMicroversion = "2.47"

// ServerImagePropertiesMicroversion adds to each server's image the
// properties Nova stored at boot (instance system_metadata image_*):
// what Nova used, even after the image was changed or deleted. Nova 31
// (2025.1) and later; ListInventory asks for it where the release has
// it, and lists at ServerMicroversion where the cloud refuses it (406).
// Not shown for a volume-backed server: its image is "".
const ServerImagePropertiesMicroversion = "2.98"

// ServerCellDownMicroversion is where Nova lists a server of a cell it
// cannot reach as a partial record (status UNKNOWN, no flavor) instead
// of leaving it out (Stein, 19.0.0): below it, a server list cannot
// prove that any server is absent.
const ServerCellDownMicroversion = "2.69"

// ListedServer is what the audits read of a server: decoding the page
// into it, not into gophercloud's servers.Server, keeps nothing else
// (addresses, links, volumes…) once the page is decided.
type ListedServer struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id"`
	Status   string `json:"status"`
	Host     string `json:"OS-EXT-SRV-ATTR:host"`
	// RootDevice is shown from 2.3 to admins (Nova's default policy for
	// extended attributes): the device the boot volume is attached as.
	RootDevice string            `json:"OS-EXT-SRV-ATTR:root_device_name"`
	Metadata   map[string]string `json:"metadata"`
	// Image is {"id": …, "properties": {…} from 2.98}, or "" for a
	// volume-backed server.
	Image json.RawMessage `json:"image"`
	// Flavor is nil in the partial record Nova lists (2.69+) for a
	// server in a cell it cannot reach: status UNKNOWN, no flavor, no image.
	Flavor *struct {
		OriginalName string         `json:"original_name"`
		ExtraSpecs   map[string]any `json:"extra_specs"`
		// the instance's own flavor copy (views/servers.py
		// _get_flavor_dict): Nova requires vcpus and ram >= 1, so 0
		// means not shown
		VCPUs     int `json:"vcpus"`
		RAM       int `json:"ram"`
		Disk      int `json:"disk"`
		Ephemeral int `json:"ephemeral"`
	} `json:"flavor"`
}

// VTPMImage is the server's image ID and, from 2.98, the vTPM keys of the
// properties Nova stored at boot (shown says the answer had them).
func (s ListedServer) VTPMImage() (id string, props map[string]string, shown bool) {
	var img struct {
		ID         string          `json:"id"`
		Properties *map[string]any `json:"properties"`
	}
	if len(s.Image) == 0 || s.Image[0] != '{' || json.Unmarshal(s.Image, &img) != nil {
		return "", nil, false
	}
	if img.Properties == nil {
		return img.ID, nil, false
	}
	props = map[string]string{}
	for k, v := range *img.Properties {
		if nova.IsVTPMImageKey(k) {
			props[k] = SpecString(v)
		}
	}
	return img.ID, props, true
}

// ServerQuery is one server list: at which microversion, whose servers.
type ServerQuery struct {
	// Microversion the list is asked at (ServerMicroversion and up).
	Microversion string
	AllTenants   bool
	// ProjectID narrows an all_tenants list to one project (admin; Nova
	// honours project_id only with all_tenants, at every microversion).
	ProjectID string
}

// EachServerPage follows Nova's server list, 1,000 a page, decoding
// each answer straight into ListedServer: gophercloud's pager would first
// build a generic map of the whole page and marshal it again to extract
// it (at 50,000 servers, 3 GB allocated and a 270 MB peak for hosts audit).
// A page's servers are decoded while the next page is asked for (the
// next link is read first, from the raw page): the chain of requests
// never waits on a decode. f is called in order, from one goroutine at a
// time. The transport's paging guard applies as to any list.
func EachServerPage(ctx context.Context, c *gophercloud.ServiceClient, sq ServerQuery, f func([]ListedServer)) error {
	return eachServerPage(ctx, c, sq, f)
}

// ServerRef is what a list of IDs keeps of a server: its ID, and whether
// Nova listed it as a partial record (2.69+: a server of a cell it
// cannot reach, without its flavor). Decoding into it skips the rest of
// each server's record.
type ServerRef struct {
	ID     string    `json:"id"`
	Flavor *struct{} `json:"flavor"`
}

// Partial says whether Nova listed the server as a partial record.
func (s ServerRef) Partial() bool { return s.Flavor == nil }

// EachServerIDPage is EachServerPage (the same requests, pages and
// guard) decoding each server's ID alone: another region's Nova asked
// which servers it holds.
func EachServerIDPage(ctx context.Context, c *gophercloud.ServiceClient, sq ServerQuery, f func([]ServerRef)) error {
	return eachServerPage(ctx, c, sq, f)
}

// eachServerPage follows the server list, decoding each page into a []T.
func eachServerPage[T any](ctx context.Context, c *gophercloud.ServiceClient, sq ServerQuery, f func([]T)) error {
	q, err := servers.ListOpts{AllTenants: sq.AllTenants, Limit: 1000}.ToServerListQuery()
	if err != nil {
		return err
	}
	if sq.ProjectID != "" {
		// project_id, not gophercloud's tenant_id: the spelling Nova's
		// schema keeps (tenant_id is its deprecated alias)
		q += "&project_id=" + url.QueryEscape(sq.ProjectID)
	}
	c = atMicroversion(c, sq.Microversion)
	ctx = paging.Guard(ctx, "server list")
	decoded := make(chan error, 1)
	decoded <- nil // no page before the first
	for u := c.ServiceURL("servers", "detail") + q; u != ""; {
		var page struct {
			Servers json.RawMessage `json:"servers"`
			Links   []struct {
				Href string `json:"href"`
				Rel  string `json:"rel"`
			} `json:"servers_links"`
		}
		_, err := c.Get(ctx, u, &page, &gophercloud.RequestOpts{OkCodes: []int{200}})
		if derr := <-decoded; derr != nil { // the page before: in order, one at a time
			return derr
		}
		if err != nil {
			return err
		}
		this := u
		u = ""
		for _, l := range page.Links {
			if l.Rel == "next" && !emptyList(page.Servers) {
				u = l.Href
			}
		}
		go func() {
			var list []T
			if err := json.Unmarshal(page.Servers, &list); err != nil {
				decoded <- fmt.Errorf("server list page %s: %w", this, err)
				return
			}
			f(list)
			decoded <- nil
		}()
	}
	return <-decoded
}

// emptyList: a JSON array with nothing in it (or null, or nothing).
func emptyList(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null" || bytes.Equal(bytes.Join(bytes.Fields(t), nil), []byte("[]"))
}

// SpecString is an extra spec or image property as Nova compares it:
// JSON gives strings, but a hand-made flavor may hold a number.
func SpecString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
