package inventory

import (
	"context"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Against the local cloud's captured answers (fakecloud fixtures).
func TestListKeepingServers(t *testing.T) {
	c := fakecloud.New(t).Standard()
	cc, gl := c.ServiceClient("compute/v2.1"), c.ServiceClient("image")
	ctx := context.Background()
	inv, err := List(ctx, cc, gl, nova.Zed, Opts{AllTenants: true, KeepServers: true})
	if err != nil || inv.Guests.Len() != 1 || inv.Guests.At(0).Name != fakecloud.FixtureServer || inv.Guests.At(0).Model != "tpm-crb" || inv.Guests.At(0).Mode != "user" {
		t.Fatalf("guests: %+v %v", inv, err)
	}
	if c.Count("GET /compute/v2.1/servers/detail") != 1 || c.Count("GET /image/v2/images") != 1 {
		t.Errorf("one server list and one image list: %v", c.Requests)
	}
	c.Handle("GET /compute/v2.1/servers/detail", fakecloud.JSON(403, `{"forbidden":{"message":"Policy doesn't allow"}}`))
	if _, err := List(ctx, cc, gl, nova.Zed, Opts{AllTenants: true, KeepServers: true}); err == nil || !strings.Contains(err.Error(), "listing servers") {
		t.Errorf("403: %v", err)
	}
}
