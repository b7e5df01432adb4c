package inventory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// strictAPI is a strict fakecloud answering the stubs it is given, keyed
// by method, path and query as sent, or with " @<microversion>" for one
// compute microversion (" @volume 3.0": another service's); anything else
// fails the test, so does a stub never requested. A compute stub without
// " @" answers compute.ServerCellDownMicroversion only (what the
// inventory lists at on Zed), another service's only a request without a
// microversion, so a client that drops or changes one misses. A body
// "!NNN …" is sent with status NNN, $URL in it is the fake's URL;
// onRequest, when set, runs before each answer (a test cancels there).
// got and mvs are the stubs answered, in order, and the microversion
// header each carried.
type strictAPI struct {
	*fakecloud.Cloud
	mu        sync.Mutex
	mvs       map[string]string
	got       []string
	onRequest func(key string)
	stubs     map[string]*fakecloud.Stub // by key: a test marks one Optional
}

func newStrictAPI(t *testing.T, stubs map[string]string) *strictAPI {
	a := &strictAPI{Cloud: fakecloud.New(t), mvs: map[string]string{}, stubs: map[string]*fakecloud.Stub{}}
	for key, body := range stubs {
		uri, mv, at := strings.Cut(key, " @")
		isCompute := strings.Contains(uri, " /compute/")
		switch {
		case !at && isCompute:
			mv = "compute " + compute.ServerCellDownMicroversion
		case !at:
			mv = "none"
		case !strings.Contains(mv, " "):
			mv = "compute " + mv
		}
		status := http.StatusOK
		if code, rest, ok := strings.Cut(body, " "); ok && len(code) == 4 && code[0] == '!' {
			status, _ = strconv.Atoi(code[1:])
			body = rest
		}
		a.stubs[key] = a.Handle(uri+" ["+mv+"]", func(w http.ResponseWriter, r *http.Request) {
			sent := r.Header.Get("X-OpenStack-Nova-API-Version")
			if !isCompute {
				sent = r.Header.Get("OpenStack-API-Version")
			}
			a.mu.Lock()
			a.got, a.mvs[key] = append(a.got, key), sent
			a.mu.Unlock()
			if a.onRequest != nil {
				a.onRequest(key)
			}
			fakecloud.JSON(status, strings.ReplaceAll(body, "$URL", a.URL))(w, r)
		})
	}
	return a
}

// client is the fake's client for a service path.
func (a *strictAPI) client(path string) *gophercloud.ServiceClient { return a.ServiceClient(path) }

// server builds one server of the list: image "" is volume-backed;
// root "" leaves root_device_name out (a non-admin's view).
func server(id, image, root string, specs map[string]string) map[string]any {
	s := map[string]any{"id": id, "name": "n-" + id, "tenant_id": "p1", "user_id": "u1", "status": "ACTIVE",
		"OS-EXT-SRV-ATTR:host": "cmp1", "image": "", "flavor": map[string]any{"original_name": "f", "extra_specs": specs}}
	if image != "" {
		s["image"] = map[string]any{"id": image}
	}
	if root != "" {
		s["OS-EXT-SRV-ATTR:root_device_name"] = root
	}
	return s
}

// volume is one volume of Cinder's detail list, attached to server as device.
func volume(id, server, device string, bootable bool, md map[string]string) map[string]any {
	att := []map[string]any{}
	if server != "" {
		att = append(att, map[string]any{"server_id": server, "device": device, "attachment_id": "a-" + id, "volume_id": id})
	}
	return map[string]any{"id": id, "name": "v-" + id, "status": "in-use", "os-vol-tenant-attr:tenant_id": "p1",
		"bootable": map[bool]string{true: "true", false: "false"}[bootable], "volume_image_metadata": md, "attachments": att}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var (
	tpm      = map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb", "image_name": "win11", "checksum": "abc"}
	tpmTIS   = map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-tis"}
	plain    = map[string]string{"image_name": "debian"}
	vtpmSpec = map[string]string{"hw:tpm_version": "2.0"}
	noSpec   = map[string]string{}
)

const (
	imagesAt  = "GET /image/v2/images?limit=1000"
	serversAt = "GET /compute/v2.1/servers/detail?all_tenants=true&limit=1000"
	volumesAt = "GET /volume/v3/volumes/detail?all_tenants=true&limit=1000" + atCinder
	serversP  = "GET /compute/v2.1/servers/detail?limit=1000"
	volumesP  = "GET /volume/v3/volumes/detail?limit=1000" + atCinder
	// atCinder: the inventory's volume list names its microversion
	// (cinder.ImageMetadataMicroversion), as every Cinder call does.
	atCinder = " @volume " + cinder.ImageMetadataMicroversion
)

// Each server's vTPM is decided from what Nova read at boot: the boot
// volume's image metadata for a volume-backed server (before: "no
// vTPM"), the flavor, the image; where that cannot be read the server is
// undecided with its reason. One volume list for all servers, in the
// inventory's scope; the volume list's second page is followed.
func TestListInventoryVolumes(t *testing.T) {
	images := js(map[string]any{"images": []any{
		map[string]any{"id": "img-tpm", "name": "win", "status": "active", "hw_tpm_version": "2.0", "hw_tpm_model": "tpm-tis"},
		map[string]any{"id": "img-plain", "name": "plain", "status": "active"}}})
	servers := js(map[string]any{"servers": []any{
		server("bfv-tpm", "", "/dev/vda", noSpec),            // volume asks
		server("bfv-plain-flavor", "", "/dev/sda", vtpmSpec), // flavor asks, volume plain
		server("bfv-ide", "", "", noSpec),                    // no root_device_name: bootable /dev/hda
		server("bfv-lost", "", "/dev/vda", noSpec),           // its volume not in the list
		server("img-tpm", "img-tpm", "/dev/vda", noSpec),     // Glance image asks
		server("img-gone", "img-deleted", "/dev/vda", noSpec),
		server("img-gone-flavor", "img-deleted", "/dev/vda", vtpmSpec),
		server("img-plain", "img-plain", "/dev/vda", noSpec),
	}})
	page1 := func(next string) string {
		return js(map[string]any{"volumes": []any{
			volume("v1", "bfv-tpm", "/dev/vda", true, tpm),
			volume("v1-data", "bfv-tpm", "/dev/vdb", true, tpmTIS), // a data volume made from another image
			volume("v2", "bfv-plain-flavor", "/dev/sda", true, plain),
			volume("free", "", "", true, tpm),
		}, "volumes_links": []map[string]string{{"rel": "next", "href": "$URL" + next}}})
	}
	page2 := js(map[string]any{"volumes": []any{
		volume("v3", "bfv-ide", "/dev/hda", true, tpmTIS),
		volume("v4", "img-plain", "/dev/vda", true, tpm), // not a boot volume: the server boots from its image
	}})
	type guest struct {
		ev           nova.Evidence
		model        string
		undecided    nova.Undecided
		bootVolumeID string
	}
	all := map[string]guest{
		"bfv-tpm":          {ev: nova.EvidenceVolume, model: "tpm-crb", bootVolumeID: "v1"},
		"bfv-plain-flavor": {ev: nova.EvidenceFlavor, model: "tpm-tis", bootVolumeID: "v2"},
		"bfv-ide":          {ev: nova.EvidenceVolume, model: "tpm-tis", bootVolumeID: "v3"},
		"bfv-lost":         {undecided: nova.UndecidedNoBootVolume},
		"img-tpm":          {ev: nova.EvidenceImage, model: "tpm-tis"},
		"img-gone":         {undecided: nova.UndecidedImageGone},
		"img-gone-flavor":  {ev: nova.EvidenceFlavor, model: "tpm-tis"},
	}
	noCinder := map[string]guest{
		"bfv-tpm":          {undecided: nova.UndecidedNoBlockStorage},
		"bfv-plain-flavor": {ev: nova.EvidenceFlavor, model: "tpm-tis"},
		"bfv-ide":          {undecided: nova.UndecidedNoBlockStorage},
		"bfv-lost":         {undecided: nova.UndecidedNoBlockStorage},
		"img-tpm":          {ev: nova.EvidenceImage, model: "tpm-tis"},
		"img-gone":         {undecided: nova.UndecidedImageGone},
		"img-gone-flavor":  {ev: nova.EvidenceFlavor, model: "tpm-tis"},
	}
	for _, c := range []struct {
		name       string
		allTenants bool
		cinder     bool
		stubs      map[string]string
		want       map[string]guest
	}{
		{"all tenants", true, true, map[string]string{imagesAt: images, serversAt: servers, volumesAt: page1("/volume/v3/volumes/detail?all_tenants=true&limit=1000&marker=free"),
			"GET /volume/v3/volumes/detail?all_tenants=true&limit=1000&marker=free" + atCinder: page2}, all},
		{"project scope", false, true, map[string]string{imagesAt: images, serversP: servers,
			volumesP: page1("/volume/v3/volumes/detail?limit=1000&marker=free"), "GET /volume/v3/volumes/detail?limit=1000&marker=free" + atCinder: page2}, all},
		{"no block storage in the catalog", true, false, map[string]string{imagesAt: images, serversAt: servers}, noCinder},
	} {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s keep=%v", c.name, keep), func(t *testing.T) {
				a := newStrictAPI(t, c.stubs)
				opts := Opts{AllTenants: c.allTenants, KeepServers: keep}
				if c.cinder {
					opts.Volumes = a.client("volume/v3")
				}
				inv, err := List(context.Background(), a.client("compute/v2.1"), a.client("image"), nova.Zed, opts)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]guest{}
				for _, g := range inv.Guests.All() {
					got[g.ServerID] = guest{ev: g.Evidence, model: g.Model}
					if g.Version != "2.0" || g.Mode != nova.SecretUser || g.ProjectID != "p1" || g.Host != "cmp1" {
						t.Errorf("%s: %+v", g.ServerID, g)
					}
				}
				for _, u := range inv.Undecided {
					if _, dup := got[u.Guest.ServerID]; dup || u.Guest.Version != "" || u.Guest.Evidence != "" || u.Guest.UserID != "u1" {
						t.Errorf("undecided %+v", u)
					}
					got[u.Guest.ServerID] = guest{undecided: u.Reason}
					if _, other := inv.Others[u.Guest.ServerID]; !other {
						t.Errorf("undecided %s not in Others", u.Guest.ServerID)
					}
				}
				want := map[string]guest{}
				for id, g := range c.want {
					if keep {
						if s := inv.Servers[id]; s.BootVolumeID != g.bootVolumeID || (g.bootVolumeID != "") != (s.BootVolume != nil) {
							t.Errorf("%s: boot volume %q %v", id, s.BootVolumeID, s.BootVolume)
						}
					}
					g.bootVolumeID = ""
					want[id] = g
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
				if n := inv.UndecidedCount(nova.UndecidedNoBlockStorage); n != map[bool]int{true: 0, false: 3}[c.cinder] {
					t.Errorf("no block storage: %d", n)
				}
				for k, mv := range a.mvs {
					if strings.Contains(k, "/compute/") && mv != compute.ServerCellDownMicroversion {
						t.Errorf("%s at %q", k, mv)
					}
				}
				// only the boot volumes' vTPM keys stay without KeepServers;
				// every property with it (plan verify reads firmware)
				if bv := inv.Servers["bfv-tpm"].BootVolume; keep && c.cinder && (bv == nil || bv.Properties["checksum"] != "abc") {
					t.Errorf("kept boot volume %+v", bv)
				}
			})
		}
	}
}

// Without KeepServers the index keeps only the vTPM keys, and one shared
// copy of each distinct set: 50,000 volumes made from a few images do
// not stay 50,000 maps once the list is joined.
func TestIndexVolumesShared(t *testing.T) {
	var vols []map[string]any
	for i := 0; i < 100; i++ {
		vols = append(vols, volume("v"+string(rune('a'+i%26))+string(rune('a'+i/26)), "s"+string(rune('a'+i%26))+string(rune('a'+i/26)), "/dev/vda", true,
			map[string]string{"hw_tpm_version": "2.0", "image_name": "win", "checksum": string(rune('a' + i%26))}))
	}
	a := newStrictAPI(t, map[string]string{volumesP: js(map[string]any{"volumes": vols})})
	idx, err := listVolumeIndex(context.Background(), a.client("volume/v3"), false, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[*nova.Image]bool{}
	for _, atts := range idx {
		for _, v := range atts {
			distinct[v.props] = true
			if keys := sortedKeys(v.props.Properties); !reflect.DeepEqual(keys, []string{"hw_tpm_version"}) {
				t.Fatalf("kept %v", keys)
			}
		}
	}
	if len(idx) != 100 || len(distinct) != 1 {
		t.Errorf("%d servers, %d distinct property sets", len(idx), len(distinct))
	}
}

func sortedKeys(m map[string]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

// A flavor's hw:tpm_secret_security still sets an undecided server's
// mode (what an audit promoting it must assume), on releases that read it.
func TestListInventoryUndecidedMode(t *testing.T) {
	a := newStrictAPI(t, map[string]string{imagesAt: `{"images":[]}`,
		serversP + " @" + compute.ServerImagePropertiesMicroversion: js(map[string]any{"servers": []any{server("s", "", "", map[string]string{"hw:tpm_secret_security": "host"})}})})
	inv, err := List(context.Background(), a.client("compute/v2.1"), a.client("image"), nova.Gazpacho, Opts{})
	if err != nil || len(inv.Undecided) != 1 || inv.Undecided[0].Guest.Mode != nova.SecretHost || inv.Undecided[0].Reason != nova.UndecidedNoBlockStorage {
		t.Errorf("%+v %v", inv.Undecided, err)
	}
}

// No block storage in the catalog is no client and no error; another
// failure stays an error.
func TestOptionalVolumes(t *testing.T) {
	c := &gophercloud.ServiceClient{}
	notFound := fmt.Errorf("no block-storage endpoint in the service catalog: %w", &gophercloud.ErrEndpointNotFound{})
	for _, x := range []struct {
		in      *gophercloud.ServiceClient
		err     error
		want    *gophercloud.ServiceClient
		wantErr bool
	}{{c, nil, c, false}, {nil, notFound, nil, false}, {nil, fmt.Errorf("wrapped: %w", gophercloud.ErrEndpointNotFound{}), nil, false}, {nil, errors.New("bad URL"), nil, true}} {
		got, err := compute.OptionalVolumes(x.in, x.err)
		if got != x.want || (err != nil) != x.wantErr {
			t.Errorf("%v: %v %v", x.err, got, err)
		}
	}
}
