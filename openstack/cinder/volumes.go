package cinder

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// Volume is the part of a Cinder volume vtpmctl reads. Decoded straight
// from the page (not gophercloud's full Volume) so a 50,000-volume list
// keeps only these fields.
type Volume struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	ProjectID string `json:"os-vol-tenant-attr:tenant_id"`
	// Bootable is Cinder's "true"/"false" string, decoded.
	Bootable Bootable `json:"bootable"`
	// ImageMetadata is volume_image_metadata: the image's properties
	// Cinder copied when the volume was created from an image, plus any
	// set later with os-set_image_metadata. Nova reads it, not Glance,
	// for a server booted from this volume.
	ImageMetadata map[string]string `json:"volume_image_metadata"`
	// Metadata is the volume's own metadata (not the image's): where a
	// migration tool or plan apply ties it to its source VM.
	Metadata    map[string]string `json:"metadata,omitempty"`
	Attachments []Attachment      `json:"attachments"`
}

// Attachment is one server the volume is attached to, and as which device.
type Attachment struct {
	ServerID string `json:"server_id"`
	Device   string `json:"device"`
}

// Bootable decodes Cinder's bootable flag, a JSON string ("true").
type Bootable bool

// UnmarshalJSON accepts "true"/"false" (Cinder) and true/false.
func (b *Bootable) UnmarshalJSON(p []byte) error {
	s := string(p)
	*b = Bootable(s == `"true"` || s == `true` || s == `"True"`)
	return nil
}

// ListOpts selects volumes; zero lists the token's project.
type ListOpts struct {
	// AllTenants lists every project's volumes (admin).
	AllTenants bool
	// ProjectID narrows an AllTenants list to one project.
	ProjectID string
	// Bootable lists bootable volumes only (filtered by Cinder).
	Bootable bool
}

// ListVolumes follows every page of /volumes/detail (one GET per page of
// up to 1,000; Cinder caps pages at its osapi_max_limit). Microversion
// 3.0: volume_image_metadata and attachments are in every 3.x detail list.
func ListVolumes(ctx context.Context, c *gophercloud.ServiceClient, o ListOpts) ([]Volume, error) {
	var out []Volume
	err := EachVolumePage(ctx, c, o, func(page []Volume) error {
		out = append(out, page...)
		return nil
	})
	return out, err
}

// EachVolumePage is ListVolumes a page at a time: f sees each page as it
// arrives, so a caller that indexes what it needs never holds every
// volume. Each answer is decoded once, straight into Volume: gophercloud's
// pager decoded a page into a generic map, then marshalled and decoded it
// twice more (IsEmpty, then ExtractVolumesInto), which at 1,000 volumes
// a page made the volume list cost three times the server list.
func EachVolumePage(ctx context.Context, c *gophercloud.ServiceClient, o ListOpts, f func([]Volume) error) error {
	opts := volumes.ListOpts{AllTenants: o.AllTenants, TenantID: o.ProjectID, Limit: 1000}
	if o.Bootable {
		t := true
		opts.Bootable = &t
	}
	q, err := opts.ToVolumeListQuery()
	if err != nil {
		return err
	}
	ctx = paging.Guard(ctx, "volume list")
	c = at(c, ImageMetadataMicroversion) // whatever the caller's client says
	for u := c.ServiceURL("volumes", "detail") + q; u != ""; {
		var page struct {
			Volumes []Volume `json:"volumes"`
			Links   []struct {
				Href string `json:"href"`
				Rel  string `json:"rel"`
			} `json:"volumes_links"`
		}
		if _, err := c.Get(ctx, u, &page, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
			return err
		}
		if err := f(page.Volumes); err != nil {
			return err
		}
		u = ""
		for _, l := range page.Links {
			if l.Rel == "next" && len(page.Volumes) > 0 {
				u = l.Href
			}
		}
	}
	return nil
}
