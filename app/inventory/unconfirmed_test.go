package inventory

import (
	"context"
	"reflect"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// A server decided "no vTPM" from image properties as they are now is
// unconfirmed, with why: a volume-backed server's boot volume (Nova
// never shows what it read there), an image-booted server's Glance image
// where the list lacks 2.98's copy of what Nova stored at boot. Before,
// both were only in Others, so no audit looked for their secret or their
// host's <tpm>. Decided by the instance's properties (2.98), by a vTPM
// request, or not at all (undecided) is not unconfirmed.
func TestListInventoryUnconfirmed(t *testing.T) {
	images := js(map[string]any{"images": []any{
		map[string]any{"id": "img-plain", "name": "plain", "status": "active"},
		map[string]any{"id": "img-tpm", "name": "win", "status": "active", "hw_tpm_version": "2.0"}}})
	servers := []any{
		server("bfv-plain", "", "/dev/vda", noSpec),           // volume untagged (or never tagged)
		server("bfv-tpm", "", "/dev/sda", noSpec),             // volume asks: a guest
		server("img-plain", "img-plain", "/dev/vda", noSpec),  // image as it is now
		server("img-tpm", "img-tpm", "/dev/vda", noSpec),      // image asks: a guest
		server("img-gone", "img-deleted", "/dev/vda", noSpec), // undecided, not unconfirmed
		server("flavor", "img-plain", "/dev/vda", vtpmSpec),   // flavor asks: a guest
	}
	vols := js(map[string]any{"volumes": []any{
		volume("v1", "bfv-plain", "/dev/vda", true, plain),
		volume("v2", "bfv-tpm", "/dev/sda", true, tpm)}})
	withProps := func(s map[string]any, props map[string]string) map[string]any {
		if img, ok := s["image"].(map[string]any); ok {
			img["properties"] = props
		}
		return s
	}
	var at298 []any
	for _, s := range servers {
		s := s.(map[string]any)
		c := map[string]any{}
		for k, v := range s {
			c[k] = v
		}
		if img, ok := s["image"].(map[string]any); ok {
			c["image"] = map[string]any{"id": img["id"]}
		}
		at298 = append(at298, withProps(c, map[string]string{})) // Nova stored no hw_tpm_* at boot
	}
	type row struct {
		Reason nova.Unconfirmed
		Mode   nova.SecretMode
		Host   string
	}
	for _, c := range []struct {
		name  string
		rel   nova.Release
		stubs map[string]string
		want  map[string]row
		// undecided: the deleted image's server, where 2.98 does not show
		// what Nova stored
		undecided []string
		guests    int // img-tpm tagged after boot is none at 2.98
	}{
		{"zed: image and volume as they are now", nova.Zed,
			map[string]string{imagesAt: images, serversP: js(map[string]any{"servers": servers}), volumesP: vols},
			map[string]row{"bfv-plain": {nova.UnconfirmedVolumeNow, nova.SecretUser, "cmp1"}, "img-plain": {nova.UnconfirmedImageNow, nova.SecretUser, "cmp1"}}, []string{"img-gone"}, 3},
		// 2.98 shows what Nova stored at boot for image-booted servers:
		// decided; a volume-backed server's is never shown.
		{"2025.2: the instance's properties decide", nova.Flamingo,
			map[string]string{imagesAt: images, serversP + " @2.98": js(map[string]any{"servers": at298}), volumesP: vols},
			map[string]row{"bfv-plain": {nova.UnconfirmedVolumeNow, nova.SecretUser, "cmp1"}}, nil, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newStrictAPI(t, c.stubs)
			inv, err := List(context.Background(), a.client("compute/v2.1"), a.client("image"), c.rel,
				Opts{Volumes: a.client("volume/v3")})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]row{}
			for _, u := range inv.Unconfirmed {
				got[u.Guest.ServerID] = row{u.Reason, u.Guest.Mode, u.Guest.Host}
				if _, other := inv.Others[u.Guest.ServerID]; !other || u.Guest.Version != "" || u.Guest.Evidence != "" || u.Guest.ProjectID != "p1" || u.Guest.UserID != "u1" {
					t.Errorf("unconfirmed %+v (in Others: %v)", u, other)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("unconfirmed %+v\nwant        %+v", got, c.want)
			}
			var undecided []string
			for _, u := range inv.Undecided {
				undecided = append(undecided, u.Guest.ServerID)
			}
			if !reflect.DeepEqual(undecided, c.undecided) {
				t.Errorf("undecided %v, want %v", undecided, c.undecided)
			}
			if inv.Guests.Len() != c.guests {
				t.Errorf("guests %+v", inv.Guests)
			}
		})
	}
}

// A 2026.1 flavor's hw:tpm_secret_security sets the unconfirmed server's
// mode, as an audit promoting it must assume.
func TestListInventoryUnconfirmedMode(t *testing.T) {
	a := newStrictAPI(t, map[string]string{imagesAt: `{"images":[]}`, volumesP: js(map[string]any{"volumes": []any{volume("v1", "s", "/dev/vda", true, plain)}}),
		serversP + " @" + compute.ServerImagePropertiesMicroversion: js(map[string]any{"servers": []any{server("s", "", "/dev/vda", map[string]string{"hw:tpm_secret_security": "host"})}})})
	inv, err := List(context.Background(), a.client("compute/v2.1"), a.client("image"), nova.Gazpacho,
		Opts{Volumes: a.client("volume/v3")})
	if err != nil || len(inv.Unconfirmed) != 1 || inv.Unconfirmed[0].Guest.Mode != nova.SecretHost || inv.Unconfirmed[0].Reason != nova.UnconfirmedVolumeNow || len(inv.Undecided) != 0 {
		t.Errorf("%+v %+v %v", inv.Unconfirmed, inv.Undecided, err)
	}
}
