package cinder

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// ListVolumes against fakecloud's volumes-detail (Cinder's answer shape:
// string bootable flags, volume_image_metadata with string values,
// attachments) through the strict route: the query must be what the
// options say.
func TestListVolumesFixture(t *testing.T) {
	c := fakecloud.New(t).Standard()
	bs := c.ServiceClient("volume/v3/" + fakecloud.ProjectID)
	vols, err := ListVolumes(context.Background(), bs, ListOpts{AllTenants: true, Bootable: true, ProjectID: "d5ab23cd38db42dcbf083f49a1a91f8b"})
	if err != nil || len(vols) != 3 {
		t.Fatalf("%d volumes, %v", len(vols), err)
	}
	q := c.SentTo("GET", "/volume/v3/"+fakecloud.ProjectID+"/volumes/detail")[0].Query
	if q.Get("all_tenants") != "true" || q.Get("bootable") != "true" || q.Get("project_id") != "d5ab23cd38db42dcbf083f49a1a91f8b" || q.Get("limit") != "1000" {
		t.Errorf("query %v", q)
	}
	boot := vols[0]
	if boot.Name != "fx-win11-boot" || !bool(boot.Bootable) || boot.Status != "in-use" || boot.ProjectID != "d5ab23cd38db42dcbf083f49a1a91f8b" ||
		boot.ImageMetadata["hw_tpm_version"] != "2.0" || boot.ImageMetadata["image_name"] != fakecloud.FixtureImage || boot.ImageMetadata["min_ram"] != "0" {
		t.Errorf("boot volume %+v", boot)
	}
	if vols[1].Bootable || vols[1].ImageMetadata != nil || len(vols[2].Attachments) != 0 {
		t.Errorf("data %+v, spare %+v", vols[1], vols[2])
	}
	if _, err := ListVolumes(context.Background(), bs, ListOpts{}); err != nil || len(c.Sent()) != 2 || len(c.Sent()[1].Query) != 1 {
		t.Errorf("own project: %v %v", err, c.Sent())
	}
	c.Handle(fakecloud.Volumes, fakecloud.JSON(403, `{"forbidden":{"code":403}}`))
	if _, err := ListVolumes(context.Background(), bs, ListOpts{}); err == nil {
		t.Error("a 403 listed volumes")
	}
}

// BootVolume on the captured list: the volume at the server's root
// device when the API shows it, else the bootable volume at device
// letter a; another server's volumes never.
func TestBootVolumeOnFixture(t *testing.T) {
	c := fakecloud.New(t).Standard()
	vols, err := ListVolumes(context.Background(), c.ServiceClient("volume/v3/"+fakecloud.ProjectID), ListOpts{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		server, root, want string
	}{
		{fakecloud.FixtureVolumeServer, "/dev/vda", "fx-win11-boot"},
		{fakecloud.FixtureVolumeServer, "", "fx-win11-boot"},
		{fakecloud.FixtureVolumeServer, "/dev/vdb", "fx-data"},
		{fakecloud.FixtureVolumeServer, "/dev/vdc", ""},
		{"another-server", "/dev/vda", ""},
	} {
		v, ok := BootVolume(vols, tc.server, tc.root)
		if ok != (tc.want != "") || v.Name != tc.want {
			t.Errorf("%s at %q: %q %v, want %q", tc.server, tc.root, v.Name, ok, tc.want)
		}
	}
}
