package inventory

import (
	"context"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

// attachedVolume is what the inventory keeps of one volume attached to a
// server: once the list is indexed the volumes themselves are dropped,
// and the properties are shared between volumes that carry the same ones
// (thousands of volumes made from a few images).
type attachedVolume struct {
	id       string
	device   string
	bootable bool
	props    *nova.Image
}

// volumeIndex is the volumes attached to each server, by server ID.
type volumeIndex map[string][]attachedVolume

// listVolumeIndex lists every volume the inventory's scope sees (one
// list, all pages: never one GET per server) and indexes the attached
// ones by server, a page at a time: no more than a page of volumes is
// held. Without all, only the vTPM keys of the image metadata are kept:
// they are all Decide reads.
//
// projects (with allTenants) lists each project's volumes instead of
// every project's, as the server lists are narrowed: a boot volume is in
// its server's project (one elsewhere is not found, and its server stays
// undecided, never decided wrong).
func listVolumeIndex(ctx context.Context, c *gophercloud.ServiceClient, allTenants bool, projects []string, all bool) (volumeIndex, error) {
	idx := volumeIndex{}
	shared := map[string]*nova.Image{}
	lists := []string{""}
	if allTenants && projects != nil {
		lists = projects
	}
	for _, p := range lists {
		err := cinder.EachVolumePage(ctx, c, cinder.ListOpts{AllTenants: allTenants, ProjectID: p}, func(page []cinder.Volume) error {
			idx.add(page, all, shared)
			return nil
		})
		if err != nil {
			return idx, err
		}
	}
	return idx, nil
}

func (idx volumeIndex) add(vols []cinder.Volume, all bool, shared map[string]*nova.Image) {
	for i := range vols {
		v := &vols[i]
		if len(v.Attachments) == 0 {
			continue
		}
		p := sharedProps(v.ImageMetadata, all, shared)
		for _, a := range v.Attachments {
			if a.ServerID != "" {
				idx[a.ServerID] = append(idx[a.ServerID], attachedVolume{id: v.ID, device: a.Device, bootable: bool(v.Bootable), props: p})
			}
		}
	}
}

// sharedProps returns one *nova.Image per distinct set of properties.
func sharedProps(md map[string]string, all bool, shared map[string]*nova.Image) *nova.Image {
	keys := make([]string, 0, len(md))
	for k := range md {
		if all || nova.IsVTPMImageKey(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "\x00" + md[k] + "\x00")
	}
	if p, ok := shared[b.String()]; ok {
		return p
	}
	p := &nova.Image{Properties: make(map[string]string, len(keys))}
	for _, k := range keys {
		p.Properties[k] = md[k]
	}
	shared[b.String()] = p
	return p
}

// bootVolume is the server's boot volume among those attached to it
// (cinder.IsBootAttachment).
func (idx volumeIndex) bootVolume(serverID, rootDevice string) (attachedVolume, bool) {
	for _, a := range idx[serverID] {
		if cinder.IsBootAttachment(a.device, a.bootable, rootDevice) {
			return a, true
		}
	}
	return attachedVolume{}, false
}
