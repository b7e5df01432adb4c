package scale

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

type mv struct{ major, minor int }

func parseMV(s string) (mv, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), ".")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return mv{}, fmt.Errorf("%q is not MAJOR.MINOR", s)
	}
	return mv{x, y}, nil
}

func (m mv) less(o mv) bool { return m.major < o.major || m.major == o.major && m.minor < o.minor }

// microversion of a compute request (2.1 without a header); ok false
// (406 sent) above the cloud's maximum, as Nova answers.
func (r *request) microversion(w http.ResponseWriter) (mv, bool) {
	v := r.Header.Get("X-OpenStack-Nova-API-Version")
	if h := r.Header.Get("OpenStack-API-Version"); h != "" {
		v = strings.TrimSpace(strings.TrimPrefix(h, "compute"))
	}
	if v == "" {
		return mv{2, 1}, true
	}
	m, err := parseMV(v)
	top, _ := parseMV(r.c.cfg.Microversion)
	if err != nil || top.less(m) {
		fakecloud.Reply(w, 406, map[string]any{"computeFault": map[string]any{"code": 406, "message": "Version " + v + " is not supported by the API."}})
		return mv{}, false
	}
	w.Header().Set("OpenStack-API-Version", "compute "+v)
	w.Header().Set("X-OpenStack-Nova-API-Version", v)
	return m, true
}

func hComputeVersions(w http.ResponseWriter, r *request) {
	fakecloud.Reply(w, 200, map[string]any{"versions": []any{computeVersion(r)}})
}

func hComputeVersion(w http.ResponseWriter, r *request) {
	fakecloud.Reply(w, 200, map[string]any{"version": computeVersion(r)})
}

func computeVersion(r *request) map[string]any {
	return map[string]any{"id": "v2.1", "status": "CURRENT", "version": r.c.cfg.Microversion, "min_version": "2.1",
		"updated": "2013-07-23T11:33:21Z", "links": link(r.c.URL+"/compute/v2.1/", "self"),
		"media-types": []map[string]string{{"base": "application/json", "type": "application/vnd.openstack.compute+json;version=2.1"}}}
}

type novaFlavor struct {
	ID         string            `json:"id,omitempty"`
	Links      any               `json:"links,omitempty"`
	Name       string            `json:"original_name,omitempty"`
	VCPUs      *int              `json:"vcpus,omitempty"`
	RAM        *int              `json:"ram,omitempty"`
	Disk       *int              `json:"disk,omitempty"`
	Ephemeral  *int              `json:"ephemeral,omitempty"`
	Swap       *int              `json:"swap,omitempty"`
	ExtraSpecs map[string]string `json:"extra_specs,omitempty"`
}

// server is Nova's answer for one server at 2.47+, with every field a
// real Nova sends (the size is what memory measurements are about).
type server struct {
	DiskConfig   string            `json:"OS-DCF:diskConfig"`
	AZ           string            `json:"OS-EXT-AZ:availability_zone"`
	Host         string            `json:"OS-EXT-SRV-ATTR:host"`
	Hostname     string            `json:"OS-EXT-SRV-ATTR:hostname"`
	HypHostname  string            `json:"OS-EXT-SRV-ATTR:hypervisor_hostname"`
	InstanceName string            `json:"OS-EXT-SRV-ATTR:instance_name"`
	KernelID     string            `json:"OS-EXT-SRV-ATTR:kernel_id"`
	LaunchIndex  int               `json:"OS-EXT-SRV-ATTR:launch_index"`
	RamdiskID    string            `json:"OS-EXT-SRV-ATTR:ramdisk_id"`
	Reservation  string            `json:"OS-EXT-SRV-ATTR:reservation_id"`
	RootDevice   string            `json:"OS-EXT-SRV-ATTR:root_device_name"`
	UserData     *string           `json:"OS-EXT-SRV-ATTR:user_data"`
	PowerState   int               `json:"OS-EXT-STS:power_state"`
	TaskState    *string           `json:"OS-EXT-STS:task_state"`
	VMState      string            `json:"OS-EXT-STS:vm_state"`
	LaunchedAt   string            `json:"OS-SRV-USG:launched_at"`
	Terminated   *string           `json:"OS-SRV-USG:terminated_at"`
	AccessIPv4   string            `json:"accessIPv4"`
	AccessIPv6   string            `json:"accessIPv6"`
	Addresses    map[string]any    `json:"addresses"`
	ConfigDrive  string            `json:"config_drive"`
	Created      string            `json:"created"`
	Description  *string           `json:"description"`
	Flavor       novaFlavor        `json:"flavor"`
	HostID       string            `json:"hostId"`
	HostStatus   string            `json:"host_status"`
	ID           string            `json:"id"`
	Image        any               `json:"image"` // {"id": …}, or "" booted from a volume
	KeyName      *string           `json:"key_name"`
	Links        any               `json:"links"`
	Locked       bool              `json:"locked"`
	Metadata     map[string]string `json:"metadata"`
	Name         string            `json:"name"`
	Volumes      []any             `json:"os-extended-volumes:volumes_attached"`
	Progress     int               `json:"progress"`
	Status       string            `json:"status"`
	Tags         []string          `json:"tags"`
	TenantID     string            `json:"tenant_id"`
	Updated      string            `json:"updated"`
	UserID       string            `json:"user_id"`
}

func ip(n int) *int { return &n }

func (c *Cloud) flavorOf(vtpm bool, at mv) novaFlavor {
	id, name := c.d.uuid(kFlavor, 0), "m1.small"
	specs := map[string]string{"hw:cpu_policy": "shared"}
	if vtpm {
		id, name = c.d.uuid(kFlavor, 1), "vtpm.crb"
		specs = map[string]string{"hw:tpm_version": "2.0", "hw:tpm_model": "tpm-crb", "hw:cpu_policy": "shared"}
	}
	if at.less(mv{2, 47}) {
		return novaFlavor{ID: id, Links: link(c.URL+"/compute/flavors/"+id, "bookmark")}
	}
	return novaFlavor{Name: name, VCPUs: ip(2), RAM: ip(4096), Disk: ip(40), Ephemeral: ip(0), Swap: ip(0), ExtraSpecs: specs}
}

func (c *Cloud) serverObj(i int, at mv) server {
	f := c.d.server(i)
	state, power := "active", 1
	if f.status == "SHUTOFF" {
		state, power = "stopped", 4
	}
	self := c.URL + "/compute/v2.1/servers/" + f.id
	img := map[string]any{"id": f.image, "links": link(c.URL+"/compute/images/"+f.image, "bookmark")}
	if !at.less(mv{2, 98}) {
		// 2.98: the image properties Nova stored at boot
		props := map[string]string{}
		if k, ok := c.d.parseUUID(f.image, kImage); ok && k == 0 {
			props = map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb", "os_distro": "windows", "hw_firmware_type": "uefi", "hw_machine_type": "q35"}
		}
		img["properties"] = props
	}
	var image any = img
	vols := []any{}
	if f.image == "" {
		image = "" // volume-backed: Nova shows no image
		vols = append(vols, map[string]any{"id": c.d.uuid(kVolume, 2*i), "delete_on_termination": false})
		if c.d.volumeExists(2*i + 1) {
			vols = append(vols, map[string]any{"id": c.d.uuid(kVolume, 2*i+1), "delete_on_termination": false})
		}
	}
	return server{DiskConfig: "MANUAL", AZ: "nova", Host: f.host, Hostname: f.name, HypHostname: f.host + ".example.net",
		InstanceName: fmt.Sprintf("instance-%08x", i), Reservation: fmt.Sprintf("r-%08x", i), RootDevice: "/dev/vda",
		PowerState: power, VMState: state, LaunchedAt: "2026-01-01T00:00:00.000000",
		Addresses: map[string]any{"private": []map[string]any{{"addr": fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), "version": 4,
			"OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": fmt.Sprintf("fa:16:3e:%02x:%02x:%02x", i>>16&255, i>>8&255, i&255)}}},
		Created: "2026-01-01T00:00:00Z", Flavor: c.flavorOf(f.vtpmFlavor, at), HostID: fmt.Sprintf("%056x", i), HostStatus: "UP",
		ID: f.id, Image: image,
		Links:    []map[string]string{{"href": self, "rel": "self"}, {"href": c.URL + "/compute/servers/" + f.id, "rel": "bookmark"}},
		Metadata: map[string]string{}, Name: f.name, Volumes: vols, Status: f.status, Tags: []string{},
		TenantID: f.project, Updated: "2026-01-01T00:00:00Z", UserID: f.user}
}

// hServer: one server by ID, as an admin sees it (the token's project
// only for anyone else: Nova's 404 for another project's server); a
// server index past the last (an orphan secret's instance) is 404.
func hServer(w http.ResponseWriter, r *request) {
	at, ok := r.microversion(w)
	if !ok {
		return
	}
	c := r.c
	i, found := c.d.parseUUID(r.PathValue("id"), kServer)
	if found && i < c.NumServers() && (r.project == pAdmin || c.d.server(i).project == c.d.projectID(r.project)) {
		fakecloud.Reply(w, 200, map[string]any{"server": c.serverObj(i, at)})
		return
	}
	fakecloud.Reply(w, 404, map[string]any{"itemNotFound": map[string]any{"code": 404, "message": "Instance " + r.PathValue("id") + " could not be found."}})
}

// hServers: all_tenants (admin) lists every project's servers, or with
// project_id that project's; otherwise the token's project's;
// limit/marker paging with next links.
func hServers(w http.ResponseWriter, r *request) {
	at, ok := r.microversion(w)
	if !ok {
		return
	}
	c, q := r.c, r.URL.Query()
	if !q.Has("marker") {
		c.mu.Lock()
		c.lists = append(c.lists, r.URL.RawQuery)
		c.mu.Unlock()
	}
	all := q.Has("all_tenants") && q.Get("all_tenants") != "0" && !strings.EqualFold(q.Get("all_tenants"), "false")
	// Visible servers, in index order; the token's project only without
	// all_tenants (Nova then ignores project_id), the one project_id
	// names with it.
	var vis []int
	n := c.NumServers()
	if want := q.Get("project_id"); !all || want != "" {
		if !all {
			want = c.d.projectID(r.project)
		}
		for i := 0; i < n; i++ {
			if c.d.server(i).project == want {
				vis = append(vis, i)
			}
		}
		n = len(vis)
	}
	at2 := func(k int) int {
		if vis == nil {
			return k
		}
		return vis[k]
	}
	m := fakecloud.Markers{N: n, ID: func(k int) string { return c.d.uuid(kServer, at2(k)) }, Index: func(mk string) (int, bool) {
		i, ok := c.d.parseUUID(mk, kServer)
		if !ok || vis == nil {
			return i, ok
		}
		for k, v := range vis {
			if v == i {
				return k, true
			}
		}
		return 0, false
	}}
	key := fmt.Sprintf("servers?%s@%d.%d", r.URL.RawQuery, at.major, at.minor)
	c.cached(w, key, func(w http.ResponseWriter) []byte {
		return writePage(w, r, "servers", m, func(k int) any { return c.serverObj(at2(k), at) }, "/compute/v2.1/servers/detail")
	})
}

// writePage answers the page of a Nova- or Cinder-style list the request
// asks for: its items under key, and a "<key>_links" next link when the
// page is full, as both services page. Items are encoded one by one: a
// 50,000-server list is never a slice of maps. It returns the body it
// wrote (nil for an error answer).
func writePage(w http.ResponseWriter, r *request, key string, m fakecloud.Markers, item func(int) any, path string) []byte {
	from, to, ok := m.Page(w, r.Request)
	if !ok {
		return nil
	}
	var bw bytes.Buffer
	enc := json.NewEncoder(&bw)
	bw.WriteString(`{"` + key + `":[`)
	for k := from; k < to; k++ {
		if k > from {
			bw.WriteByte(',')
		}
		enc.Encode(item(k))
	}
	bw.WriteString("]")
	if next := m.Next(r.Request, r.c.URL+path, from, to); next != "" {
		b, _ := json.Marshal(fakecloud.Links(next))
		bw.WriteString(`,"` + key + `_links":`)
		bw.Write(b)
	}
	bw.WriteString("}")
	fakecloud.WriteBody(w, 200, bw.Bytes())
	return bw.Bytes()
}

// hHypervisors: 2.53+ (UUIDs), paged like servers.
func hHypervisors(w http.ResponseWriter, r *request) {
	at, ok := r.microversion(w)
	if !ok {
		return
	}
	c := r.c
	m := fakecloud.Markers{N: c.cfg.Hypervisors, ID: func(h int) string { return c.d.uuid(kHypervisor, h) },
		Index: func(mk string) (int, bool) { return c.d.parseUUID(mk, kHypervisor) }}
	from, to, ok := m.Page(w, r.Request)
	if !ok {
		return
	}
	out := make([]any, 0, to-from)
	for h := from; h < to; h++ {
		state, status := "up", "enabled"
		if h%50 == 49 {
			state = "down"
		}
		if h%40 == 39 {
			status = "disabled"
		}
		o := map[string]any{"id": c.d.uuid(kHypervisor, h), "hypervisor_hostname": hostName(h) + ".example.net", "state": state, "status": status,
			"hypervisor_type": "QEMU", "hypervisor_version": 8002000, "host_ip": fmt.Sprintf("192.168.%d.%d", h>>8&255, h&255),
			"service": map[string]any{"host": hostName(h), "id": c.d.uuid(kService, h), "disabled_reason": nil}}
		if at.less(mv{2, 88}) {
			o["vcpus"], o["memory_mb"], o["local_gb"], o["running_vms"] = 64, 262144, 2000, 25
			o["cpu_info"] = map[string]any{"arch": "x86_64", "model": "Icelake-Server", "vendor": "Intel", "features": []string{"avx", "avx2", "sse4.2"}}
		}
		out = append(out, o)
	}
	body := map[string]any{"hypervisors": out}
	if next := m.Next(r.Request, c.URL+"/compute/v2.1/os-hypervisors/detail", from, to); next != "" {
		body["hypervisors_links"] = fakecloud.Links(next)
	}
	fakecloud.Reply(w, 200, body)
}

func hServices(w http.ResponseWriter, r *request) {
	if _, ok := r.microversion(w); !ok {
		return
	}
	c, q := r.c, r.URL.Query()
	out := []any{}
	for h := 0; h < c.cfg.Hypervisors; h++ {
		if b := q.Get("binary"); b != "" && b != "nova-compute" {
			break
		}
		if hn := q.Get("host"); hn != "" && hn != hostName(h) {
			continue
		}
		out = append(out, map[string]any{"id": c.d.uuid(kService, h), "binary": "nova-compute", "host": hostName(h), "zone": "nova",
			"status": map[bool]string{true: "disabled", false: "enabled"}[h%40 == 39], "state": map[bool]string{true: "down", false: "up"}[h%50 == 49],
			"updated_at": "2026-01-01T00:00:00.000000", "disabled_reason": nil, "forced_down": false})
	}
	fakecloud.Reply(w, 200, map[string]any{"services": out})
}

func (c *Cloud) flavorDoc(k int) map[string]any {
	f := c.flavorOf(k == 1, mv{2, 61})
	id := c.d.uuid(kFlavor, k)
	return map[string]any{"id": id, "name": f.Name, "vcpus": 2, "ram": 4096, "disk": 40, "OS-FLV-EXT-DATA:ephemeral": 0, "swap": "",
		"os-flavor-access:is_public": true, "rxtx_factor": 1.0, "extra_specs": f.ExtraSpecs, "links": link(c.URL+"/compute/v2.1/flavors/"+id, "self")}
}

func hFlavors(w http.ResponseWriter, r *request) {
	if _, ok := r.microversion(w); !ok {
		return
	}
	fakecloud.Reply(w, 200, map[string]any{"flavors": []any{r.c.flavorDoc(0), r.c.flavorDoc(1)}})
}

func hFlavor(w http.ResponseWriter, r *request) {
	if _, ok := r.microversion(w); !ok {
		return
	}
	k, ok := r.c.d.parseUUID(r.PathValue("id"), kFlavor)
	if !ok || k > 1 {
		fakecloud.Reply(w, 404, map[string]any{"itemNotFound": map[string]any{"code": 404, "message": "Flavor " + r.PathValue("id") + " could not be found."}})
		return
	}
	fakecloud.Reply(w, 200, map[string]any{"flavor": r.c.flavorDoc(k)})
}
