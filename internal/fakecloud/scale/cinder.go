package scale

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Cinder: with Config.VolumeBacked, one server in VolumeBacked boots from
// a volume (image "" in Nova's answer). Its boot volume carries the
// image metadata Cinder copied from the image it was made from (the
// vTPM image for a guest that asks through its image, "plain" for one
// whose flavor asks, and for the other servers); every second one also
// has a data volume. The catalog lists block storage only then.

// volumeBacked: server i boots from a volume.
func (d *data) volumeBacked(i int) bool {
	return d.cfg.VolumeBacked > 0 && i%d.cfg.VolumeBacked == 1
}

// Volume slots: 2i is server i's boot volume, 2i+1 its data volume.
func (d *data) volumeExists(slot int) bool {
	i := slot / 2
	return i < d.cfg.Guests+d.cfg.Others && d.volumeBacked(i) && (slot%2 == 0 || i/d.cfg.VolumeBacked%2 == 0)
}

// NumVolumes is every volume Cinder lists with all_tenants.
func (c *Cloud) NumVolumes() int {
	n := 0
	for s := 0; s < 2*c.NumServers(); s++ {
		if c.d.volumeExists(s) {
			n++
		}
	}
	return n
}

// VolumeBackedGuests is how many vTPM guests boot from a volume, and how
// many of those get their vTPM from the volume's image metadata (the
// rest from their flavor).
func (c *Cloud) VolumeBackedGuests() (all, byVolume int) {
	for i := 0; i < c.cfg.Guests; i++ {
		if c.d.volumeBacked(i) {
			all++
			if i%3 == 0 {
				byVolume++
			}
		}
	}
	return all, byVolume
}

// volumeObj is Cinder's 3.x detail answer for one volume, every field a
// real (admin) answer carries: the size is what memory measurements are about.
func (c *Cloud) volumeObj(slot int) map[string]any {
	d, i, boot := c.d, slot/2, slot%2 == 0
	f := d.server(i)
	id := d.uuid(kVolume, slot)
	dev, bootable, md := "/dev/vdb", "false", map[string]string{}
	if boot {
		dev, bootable = "/dev/vda", "true"
		img := c.imageObj(1)
		if i < d.cfg.Guests && i%3 == 0 {
			img = c.imageObj(0)
		}
		for k, v := range img {
			switch k {
			case "id":
				md["image_id"] = fmt.Sprint(v)
			case "name":
				md["image_name"] = fmt.Sprint(v)
			case "checksum", "container_format", "disk_format", "min_disk", "min_ram", "size":
				md[k] = fmt.Sprint(v)
			default:
				if strings.HasPrefix(k, "hw_") || strings.HasPrefix(k, "os_") && k != "os_hidden" && !strings.HasPrefix(k, "os_hash") {
					md[k] = fmt.Sprint(v)
				}
			}
		}
	}
	o := map[string]any{"id": id, "name": fmt.Sprintf("%s-%s", f.name, map[bool]string{true: "boot", false: "data"}[boot]),
		"status": "in-use", "size": 40, "availability_zone": "nova", "created_at": "2026-01-01T00:00:00.000000",
		"updated_at": "2026-01-01T00:00:00.000000", "description": nil, "volume_type": "ceph", "snapshot_id": nil, "source_volid": nil,
		"metadata": map[string]string{}, "user_id": f.user, "bootable": bootable, "encrypted": false, "replication_status": nil,
		"consistencygroup_id": nil, "multiattach": false, "os-vol-tenant-attr:tenant_id": f.project, "os-vol-host-attr:host": "cinder@ceph#ceph",
		"os-vol-mig-status-attr:migstat": nil, "os-vol-mig-status-attr:name_id": nil,
		"links": []map[string]string{{"href": c.URL + "/volume/v3/" + f.project + "/volumes/" + id, "rel": "self"}, {"href": c.URL + "/volume/" + f.project + "/volumes/" + id, "rel": "bookmark"}},
		"attachments": []map[string]any{{"id": id, "attachment_id": d.uuid(kVolume, slot|1<<40), "volume_id": id, "server_id": f.id,
			"host_name": f.host, "device": dev, "attached_at": "2026-01-01T00:00:00.000000"}}}
	if boot {
		o["volume_image_metadata"] = md
	}
	return o
}

// hVolumes: /volumes/detail. The URL's project must be the token's (Cinder
// refuses another); all_tenants lists every project's, otherwise the
// token's project's; limit/marker paging with a next link on every full
// page (cinder/api/common.py _get_collection_links), max_limit 1,000.
func hVolumes(w http.ResponseWriter, r *request) {
	c, d, q := r.c, r.c.d, r.URL.Query()
	if r.PathValue("id") != d.projectID(r.project) {
		fakecloud.Reply(w, 400, map[string]any{"badRequest": map[string]any{"code": 400, "message": "Malformed request url"}})
		return
	}
	all := q.Has("all_tenants") && q.Get("all_tenants") != "0" && !strings.EqualFold(q.Get("all_tenants"), "false")
	// the token's project's without all_tenants (Cinder then ignores
	// project_id), the one project_id names with it
	want := q.Get("project_id")
	if !all {
		want = d.projectID(r.project)
	}
	var vis []int
	for s := 0; s < 2*c.NumServers(); s++ {
		if d.volumeExists(s) && (want == "" || d.server(s/2).project == want) {
			vis = append(vis, s)
		}
	}
	m := fakecloud.Markers{N: len(vis), ID: func(k int) string { return d.uuid(kVolume, vis[k]) }, Index: func(mk string) (int, bool) {
		s, ok := d.parseUUID(mk, kVolume)
		for k, v := range vis {
			if ok && v == s {
				return k, true
			}
		}
		return 0, false
	}}
	c.cached(w, "volumes?"+r.PathValue("id")+"?"+r.URL.RawQuery, func(w http.ResponseWriter) []byte {
		return writePage(w, r, "volumes", m, func(k int) any { return c.volumeObj(vis[k]) }, "/volume/v3/"+r.PathValue("id")+"/volumes/detail")
	})
}
