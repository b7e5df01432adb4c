package inventory

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// List against the captured answers, the server list split in
// two pages (the captured server, and a copy of it whose image Glance no
// longer has): images are listed first, each page is decided, and
// Servers is filled only when asked.
func TestListInventory(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprint("keep=", keep), func(t *testing.T) {
			c := fakecloud.New(t).Standard()
			srv := c.FixtureObjects("servers-detail", "servers")
			if len(srv) != 1 {
				t.Fatalf("fixture: %d servers", len(srv))
			}
			gone := map[string]any{}
			for k, v := range srv[0] {
				gone[k] = v
			}
			gone["id"], gone["name"] = "00000000-0000-4000-a000-000000000002", "gone-image"
			gone["image"] = map[string]any{"id": "00000000-0000-4000-a000-0000000000ff"}
			gone["flavor"] = map[string]any{"original_name": "plain", "extra_specs": map[string]any{}}
			var mvs []string
			pages := func(w http.ResponseWriter, r *http.Request) {
				mvs = append(mvs, r.Header.Get("X-OpenStack-Nova-API-Version"))
				body := map[string]any{"servers": srv, "servers_links": []map[string]string{{"rel": "next", "href": c.URL + "/compute/v2.1/servers/detail?all_tenants=True&limit=1&marker=" + srv[0]["id"].(string)}}}
				if r.URL.Query().Get("marker") != "" {
					body = map[string]any{"servers": []any{gone}}
				}
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(body)
			}
			c.Handle("GET /compute/v2.1/servers/detail", pages)
			// the next link as Nova writes it: the marker page keeps 2.69
			c.Handle("GET /compute/v2.1/servers/detail?all_tenants=True&limit=1&marker=* [compute 2.69]", pages)
			cc := c.ServiceClient("compute/v2.1")
			inv, err := List(context.Background(), cc, c.ServiceClient("image"), nova.Zed, Opts{AllTenants: true, KeepServers: keep})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"GET /image/v2/images?limit=1000", "GET /compute/v2.1/servers/detail?all_tenants=true&limit=1000",
				"GET /compute/v2.1/servers/detail?all_tenants=True&limit=1&marker=" + srv[0]["id"].(string)}
			// the image list runs beside the server list: any order
			if got := slices.Sorted(slices.Values(c.Requests)); !reflect.DeepEqual(got, slices.Sorted(slices.Values(want))) || !reflect.DeepEqual(mvs, []string{"2.69", "2.69"}) {
				t.Errorf("requests %q at %q", c.Requests, mvs)
			}
			g := nova.VTPMGuest{ServerID: srv[0]["id"].(string), Name: fakecloud.FixtureServer, ProjectID: srv[0]["tenant_id"].(string),
				UserID: srv[0]["user_id"].(string), Status: "ACTIVE", Host: "devcloud", Version: "2.0", Model: "tpm-crb", Mode: "user", Evidence: nova.EvidenceFlavor}
			if !reflect.DeepEqual(inv.Guests.Slice(), []nova.VTPMGuest{g}) {
				t.Errorf("guests %+v", inv.Guests)
			}
			if o := inv.Others["00000000-0000-4000-a000-000000000002"]; len(inv.Others) != 1 || o.Name != "gone-image" || !o.ImageUnknown {
				t.Errorf("others %+v", inv.Others)
			}
			if !keep {
				if inv.Servers != nil {
					t.Errorf("servers kept without KeepServers: %d", len(inv.Servers))
				}
				return
			}
			s := inv.Servers[g.ServerID]
			if len(inv.Servers) != 2 || s.Image == nil || s.Image.Name != fakecloud.FixtureImage || s.Flavor.Name != fakecloud.FixtureFlavor ||
				s.Flavor.ExtraSpecs[nova.FlavorTPMModel] != "tpm-crb" || s.Host != "devcloud" || inv.Servers["00000000-0000-4000-a000-000000000002"].Image != nil {
				t.Errorf("servers %+v", inv.Servers)
			}
		})
	}
}

// A volume-backed server's image is "" (not an object): no image, no vTPM
// from one, and not an unknown image either.
func TestListInventoryVolumeBacked(t *testing.T) {
	c := fakecloud.New(t).Standard()
	c.Handle("GET /compute/v2.1/servers/detail", fakecloud.JSON(200, `{"servers":[{"id":"s1","name":"vol","tenant_id":"p","user_id":"u","status":"ACTIVE","image":"","flavor":{"original_name":"f","extra_specs":{"hw:tpm_version":"2.0"}}}]}`))
	inv, err := List(context.Background(), c.ServiceClient("compute/v2.1"), c.ServiceClient("image"), nova.Zed, Opts{})
	if err != nil || inv.Guests.Len() != 1 || inv.Guests.At(0).Version != "2.0" || len(inv.Others) != 0 || inv.Servers != nil {
		t.Errorf("%+v %v", inv, err)
	}
	if c.Count("GET /compute/v2.1/servers/detail?limit=1000") != 1 {
		t.Errorf("own project only: %v", c.Requests)
	}
}
