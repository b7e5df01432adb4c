package cinder

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/pagination"
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
	Attachments   []Attachment      `json:"attachments"`
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
	opts := volumes.ListOpts{AllTenants: o.AllTenants, TenantID: o.ProjectID, Limit: 1000}
	if o.Bootable {
		t := true
		opts.Bootable = &t
	}
	var out []Volume
	err := volumes.List(c, opts).EachPage(paging.Guard(ctx, "volume list"), func(_ context.Context, p pagination.Page) (bool, error) {
		var page []Volume
		if err := volumes.ExtractVolumesInto(p, &page); err != nil {
			return false, err
		}
		out = append(out, page...)
		return true, nil
	})
	return out, err
}

// BootVolumeOf returns the volume a server boots from among vols: the
// bootable volume attached to it as its root device (rootDevice, e.g.
// "/dev/vda", from the server's OS-EXT-SRV-ATTR:root_device_name; when
// unknown, "/dev/vda" or "/dev/sda"). ok is false when none is.
func BootVolumeOf(vols []Volume, serverID, rootDevice string) (Volume, bool) {
	for _, v := range vols {
		for _, a := range v.Attachments {
			if a.ServerID != serverID {
				continue
			}
			if rootDevice != "" && a.Device == rootDevice || rootDevice == "" && (a.Device == "/dev/vda" || a.Device == "/dev/sda") {
				return v, true
			}
		}
	}
	return Volume{}, false
}
