package inventory

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

func TestListFlavorSize(t *testing.T) {
	sized := server("sized", "", "/dev/vda", vtpmSpec)
	sized["flavor"].(map[string]any)["vcpus"] = 4
	sized["flavor"].(map[string]any)["ram"] = 8192
	sized["flavor"].(map[string]any)["disk"] = 80
	sized["flavor"].(map[string]any)["ephemeral"] = 10
	sized["flavor"].(map[string]any)["swap"] = 0
	down := map[string]any{"id": "down", "status": "UNKNOWN", "tenant_id": "p1"}
	a := newStrictAPI(t, map[string]string{serversAt: js(map[string]any{"servers": []any{sized, down}})})
	inv, err := List(context.Background(), a.client("compute/v2.1"), nil, nova.Zed, Opts{AllTenants: true, KeepServers: true})
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
