package inventory

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// A volume list that fails (after the transport's retries) does not fail
// the inventory: every audit worked without Cinder before it was read.
// The volume-backed servers are undecided with their own reason and the
// error is kept for a warning; a cancelled context still fails.
func TestListInventoryVolumesUnreadable(t *testing.T) {
	servers := js(map[string]any{"servers": []any{
		server("bfv", "", "/dev/vda", noSpec),
		server("flavor-tpm", "", "/dev/vda", vtpmSpec), // decided by its flavor all the same
	}})
	for _, c := range []struct {
		name   string
		code   int
		cancel bool
	}{
		{name: "503", code: http.StatusServiceUnavailable},
		{name: "403 on all_tenants", code: http.StatusForbidden},
		{name: "cancelled", code: http.StatusServiceUnavailable, cancel: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stubs := map[string]string{volumesAt: fmt.Sprintf(`!%d {"error": "no"}`, c.code), serversAt: servers}
			a := newStrictAPI(t, stubs)
			if c.cancel { // the lists run at once: the servers' may be asked before the cancel
				a.stubs[serversAt].Optional("listed beside the volumes, which cancel the run")
			}
			a.onRequest = func(key string) {
				if c.cancel && key == volumesAt {
					cancel()
				}
			}
			client := a.client
			inv, err := List(ctx, client("compute/v2.1"), nil, nova.Zed,
				Opts{AllTenants: true, KeepServers: true, Volumes: client("volume/v3")})
			if c.cancel {
				if err == nil {
					t.Fatal("a cancelled list gave an inventory")
				}
				return
			}
			if err != nil {
				t.Fatalf("the audit fails on the volume list: %v", err)
			}
			if got := slices.Sorted(slices.Values(a.got)); !slices.Equal(got, []string{serversAt, volumesAt}) && !slices.Equal(got, []string{volumesAt, serversAt}) {
				t.Errorf("requests %v", a.got)
			}
			if inv.VolumesErr == nil || !gophercloud.ResponseCodeIs(inv.VolumesErr, c.code) {
				t.Errorf("VolumesErr %v, want the %d", inv.VolumesErr, c.code)
			}
			if len(inv.Undecided) != 1 || inv.Undecided[0].Guest.ServerID != "bfv" || inv.Undecided[0].Reason != nova.UndecidedVolumesUnreadable ||
				inv.UndecidedCount(nova.UndecidedVolumesUnreadable) != 1 {
				t.Errorf("undecided %+v", inv.Undecided)
			}
			if inv.Guests.Len() != 1 || inv.Guests.At(0).ServerID != "flavor-tpm" || inv.Guests.At(0).Evidence != nova.EvidenceFlavor {
				t.Errorf("guests %+v", inv.Guests)
			}
			if s := inv.Servers["bfv"]; s.BootVolume != nil || s.BootVolumeID != "" {
				t.Errorf("a boot volume without a volume list: %+v", s)
			}
		})
	}
}
