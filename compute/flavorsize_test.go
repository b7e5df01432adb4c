package compute

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/nova"
)

// The server list (2.47+) embeds the instance's own flavor sizes
// (views/servers.py _get_flavor_dict): kept with the server, so a
// mode-plan compares them rather than a catalog flavor of that name; a
// down cell's partial record has none.
func TestListInventoryFlavorSize(t *testing.T) {
	sized := server("sized", "", "/dev/vda", vtpmSpec)
	sized["flavor"].(map[string]any)["vcpus"] = 4
	sized["flavor"].(map[string]any)["ram"] = 8192
	sized["flavor"].(map[string]any)["disk"] = 80
	sized["flavor"].(map[string]any)["ephemeral"] = 10
	sized["flavor"].(map[string]any)["swap"] = 0
	down := map[string]any{"id": "down", "status": "UNKNOWN", "tenant_id": "p1"}
	a := newStrictAPI(t, map[string]string{serversAt: js(map[string]any{"servers": []any{sized, down}})})
	inv, err := ListInventory(context.Background(), a.client("compute/v2.1", "compute"), nil, nova.Zed, InventoryOpts{AllTenants: true, KeepServers: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := inv.Servers["sized"].FlavorSize, (nova.FlavorSize{VCPUs: 4, RAM: 8192, Disk: 80, Ephemeral: 10, Known: true}); got != want {
		t.Errorf("sized: %+v, want %+v", got, want)
	}
	if got := inv.Servers["down"].FlavorSize; got.Known {
		t.Errorf("a down cell's server has a size: %+v", got)
	}
}
