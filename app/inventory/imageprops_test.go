package inventory

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
)

// On a release with 2.98 the server list carries the image properties
// Nova stored at boot, and they decide: a deleted image's guest is found
// (before: undecided), an image tagged after boot gives its old servers
// no vTPM (before: counted as guests), an image untagged after boot keeps
// them (before: missed). A cloud that refuses 2.98 (a release pinned
// newer than the cloud) is listed again at 2.69, and one that refuses
// 2.69 too (older than Stein) at 2.47, which says it cannot see a down
// cell. A down cell's partial record is undecided, not a volume-backed
// server, and makes the list incomplete.
func TestListInventoryImagePropertiesAtBoot(t *testing.T) {
	images := js(map[string]any{"images": []any{
		map[string]any{"id": "img-tagged-later", "name": "win", "status": "active", "hw_tpm_version": "2.0"},
		map[string]any{"id": "img-untagged-later", "name": "old", "status": "active"}}})
	withProps := func(s map[string]any, props map[string]string) map[string]any {
		s["image"].(map[string]any)["properties"] = props
		return s
	}
	at298 := js(map[string]any{"servers": []any{
		withProps(server("deleted", "img-deleted", "/dev/vda", noSpec), map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb", "hw_firmware_type": "uefi"}),
		withProps(server("tagged-later", "img-tagged-later", "/dev/vda", noSpec), map[string]string{}),
		withProps(server("untagged-later", "img-untagged-later", "/dev/vda", noSpec), map[string]string{"hw_tpm_version": "2.0"}),
		map[string]any{"id": "down", "status": "UNKNOWN", "tenant_id": "p1", "created": "2026-01-01T00:00:00Z", "links": []any{}},
	}})
	at247 := js(map[string]any{"servers": []any{
		server("deleted", "img-deleted", "/dev/vda", noSpec),
		server("tagged-later", "img-tagged-later", "/dev/vda", noSpec),
		server("untagged-later", "img-untagged-later", "/dev/vda", noSpec),
	}})
	type got struct {
		guests    map[string]nova.Evidence
		undecided map[string]nova.Undecided
		mvs       []string
		gaps      []completeness.Kind // why the list cannot prove a server gone
	}
	for _, c := range []struct {
		name  string
		rel   nova.Release
		stubs map[string]string
		want  got
	}{
		{"2025.2 cloud", nova.Flamingo, map[string]string{imagesAt: images, serversP + " @2.98": at298},
			got{map[string]nova.Evidence{"deleted": nova.EvidenceInstance, "untagged-later": nova.EvidenceInstance},
				map[string]nova.Undecided{"down": nova.UndecidedCellDown}, []string{"2.98"}, []completeness.Kind{completeness.CellDown, completeness.Scope}}},
		{"zed rules", nova.Zed, map[string]string{imagesAt: images, serversP + " @2.69": at247},
			got{map[string]nova.Evidence{"tagged-later": nova.EvidenceImage},
				map[string]nova.Undecided{"deleted": nova.UndecidedImageGone}, []string{"2.69"}, []completeness.Kind{completeness.Scope}}},
		{"2025.2 rules, zed cloud", nova.Flamingo, map[string]string{imagesAt: images, serversP + " @2.98": `!406 {"computeFault":{"code":406,"message":"Version 2.98 is not supported by the API."}}`,
			serversP + " @2.69": at247},
			got{map[string]nova.Evidence{"tagged-later": nova.EvidenceImage},
				map[string]nova.Undecided{"deleted": nova.UndecidedImageGone}, []string{"2.98", "2.69"}, []completeness.Kind{completeness.Scope}}},
		{"zed rules, a cloud older than 2.69", nova.Zed, map[string]string{imagesAt: images,
			serversP + " @2.69": `!406 {"computeFault":{"code":406,"message":"Version 2.69 is not supported by the API."}}`, serversP + " @2.47": at247},
			got{map[string]nova.Evidence{"tagged-later": nova.EvidenceImage},
				map[string]nova.Undecided{"deleted": nova.UndecidedImageGone}, []string{"2.69", "2.47"}, []completeness.Kind{completeness.BelowCellDownSupport, completeness.Scope}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newStrictAPI(t, c.stubs)
			inv, err := List(context.Background(), a.client("compute/v2.1"), a.client("image"), c.rel, Opts{})
			if err != nil {
				t.Fatal(err)
			}
			g := got{guests: map[string]nova.Evidence{}, undecided: map[string]nova.Undecided{}}
			for _, x := range inv.Guests.All() {
				g.guests[x.ServerID] = x.Evidence
				if x.ServerID == "deleted" && x.Model != "tpm-crb" {
					t.Errorf("model %q", x.Model)
				}
			}
			for _, u := range inv.Undecided {
				g.undecided[u.Guest.ServerID] = u.Reason
			}
			for _, k := range a.got { // every server stub names its microversion
				if _, mv, ok := strings.Cut(k, " @"); ok {
					g.mvs = append(g.mvs, mv)
				}
			}
			for _, gap := range inv.ServerGaps {
				g.gaps = append(g.gaps, gap.Kind)
			}
			if !reflect.DeepEqual(g, c.want) {
				t.Errorf("got  %+v\nwant %+v", g, c.want)
			}
			if _, ok := inv.Others["down"]; !ok {
				if c.rel == nova.Flamingo && len(c.want.mvs) == 1 {
					t.Errorf("down cell's server not in Others: its secret is no orphan")
				}
			}
		})
	}
}
