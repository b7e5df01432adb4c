package migration

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// TestVerifyVolumeBacked: FIRMWARE and SECURE-BOOT of a volume-backed
// server are read from its boot volume's image metadata (what Nova
// read), and the remedies change the volume; before, both were skipped
// as "boot from volume". A boot volume that could not be read is a skip
// that says so.
func TestVerifyVolumeBacked(t *testing.T) {
	rel := nova.Zed
	migrated := &nova.Image{Properties: map[string]string{"hw_machine_type": "q35", "hw_firmware_type": "uefi", "os_secure_boot": "required",
		"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb"}}
	bare := &nova.Image{Properties: map[string]string{}}
	p := &Plan{Version: 1, VMs: []PlanVM{winVM("vol-ok"), winVM("vol-bare"), winVM("vol-unread"), {Name: "vol-bios", TargetVTPM: "none", Firmware: "bios", SecureBoot: "no"}}}
	inv := verifyCloud(rel,
		nova.Server{ID: "s1", Name: "vol-ok", Flavor: plainFl, BootVolumeID: "v1", BootVolume: migrated},
		nova.Server{ID: "s2", Name: "vol-bare", Flavor: plainFl, BootVolumeID: "v2", BootVolume: bare},
		nova.Server{ID: "s3", Name: "vol-unread", Flavor: plainFl},
		nova.Server{ID: "s4", Name: "vol-bios", Flavor: plainFl, BootVolumeID: "v4", BootVolume: migrated},
	)
	r := Verify(p, VerifyInput{Inventory: inv, Release: rel, Matches: MatchServers(p, inv, nil), NotChecked: map[string]string{}})
	type want struct {
		status result.Status
		text   string // in the message, or in the remedy of a failure
	}
	wants := map[string]map[string]want{
		"vol-ok": {CheckFirmware: {result.Pass, "UEFI"}, CheckSecureBoot: {result.Pass, "required"}, CheckVTPM: {result.Pass, "boot volume v1"}},
		"vol-bare": {
			CheckFirmware:   {result.Fail, "openstack volume set --image-property hw_firmware_type=uefi --image-property hw_machine_type=q35 v2, and create the server again from the volume"},
			CheckSecureBoot: {result.Fail, "openstack volume set --image-property os_secure_boot=required v2"},
		},
		"vol-unread": {CheckFirmware: {result.Skip, "boots from a volume whose image properties could not be read"}},
		"vol-bios":   {CheckFirmware: {result.Fail, "openstack volume unset --image-property hw_firmware_type v4"}},
	}
	for _, v := range r.VMs {
		for check, w := range wants[v.VM] {
			var got *VerifyCheck
			for i := range v.Checks {
				if v.Checks[i].Check == check {
					got = &v.Checks[i]
				}
			}
			if got == nil || got.Status != w.status || !strings.Contains(got.Message+" | "+got.Remedy, w.text) {
				t.Errorf("%s %s: %+v, want %s with %q", v.VM, check, got, w.status, w.text)
			}
		}
	}
}
