package volume

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

// TestPlanVolumesRerunWritesNothing: the plan applied once leaves nothing
// to write the second time, and the image attributes Cinder keeps in the
// same map are never touched.
func TestPlanVolumesRerunWritesNothing(t *testing.T) {
	v := cinder.Volume{ID: "v1", Name: "boot", Bootable: true, ImageMetadata: map[string]string{"image_id": "i1", "image_name": "win", "hw_disk_bus": "ide"}}
	req := nova.ImageRequest{Windows: true}
	first, err := Plan([]cinder.Volume{v}, true, req)
	if err != nil {
		t.Fatal(err)
	}
	w := nova.Writes(first[0].Changes)
	if len(w) != 8 { // 7 profile keys + ide -> sata
		t.Errorf("first run writes %d keys, want 8: %+v", len(w), w)
	}
	for _, c := range w {
		if c.Key == "image_id" || c.Key == "image_name" {
			t.Errorf("writes image attribute %s", c.Key)
		}
	}
	v.ImageMetadata = nova.Apply(v.ImageMetadata, first[0].Changes)
	second, err := Plan([]cinder.Volume{v}, true, req)
	if err != nil {
		t.Fatal(err)
	}
	if w := nova.Writes(second[0].Changes); len(w) != 0 {
		t.Errorf("rerun writes %+v, want nothing", w)
	}
	unset, _ := Plan([]cinder.Volume{v}, false, req)
	if w := nova.Writes(unset[0].Changes); len(w) != 7 {
		t.Errorf("unset --windows removes %d keys, want 7 (hw_disk_bus stays): %+v", len(w), w)
	}
}

// TestPlanVolumesRefusesCRBWith12: the volume's own 1.2 plus --tpm-model
// tpm-crb is refused before any write, naming the volume.
func TestPlanVolumesRefusesCRBWith12(t *testing.T) {
	v := cinder.Volume{ID: "v1", Name: "old", ImageMetadata: map[string]string{"hw_tpm_version": "1.2"}}
	_, err := Plan([]cinder.Volume{v}, true, nova.ImageRequest{TPMVersion: "1.2", TPMModel: "tpm-tis"})
	if err != nil {
		t.Fatalf("1.2 tis refused: %v", err)
	}
	_, err = Plan([]cinder.Volume{v}, true, nova.ImageRequest{TPMVersion: "1.2", TPMModel: "tpm-crb"})
	if err == nil {
		t.Fatal("CRB with 1.2 accepted")
	}
}

// TestPlanVolumesNameNearMisses: a key of the volume's image metadata that
// Nova ignores but that stands for a vTPM key is named on its plan, set or
// unset; the keys the plan writes are Nova's.
func TestPlanVolumesNameNearMisses(t *testing.T) {
	v := cinder.Volume{ID: "v1", Name: "boot", Bootable: true, ImageMetadata: map[string]string{"image_id": "i1", "hw_tpm_verion": "2.0"}}
	want := []nova.NearMiss{{Key: "hw_tpm_verion", Kind: nova.ImageKeys, Want: nova.ImageTPMVersion, Reason: nova.MissTypo}}
	for _, set := range []bool{true, false} {
		plans, err := Plan([]cinder.Volume{v}, set, nova.ImageRequest{TPMVersion: "2.0"})
		if err != nil || len(plans) != 1 || len(plans[0].NearMisses) != 1 || plans[0].NearMisses[0] != want[0] {
			t.Errorf("set %v: %v %+v", set, err, plans)
		}
	}
	v.ImageMetadata = map[string]string{"image_id": "i1"}
	if plans, _ := Plan([]cinder.Volume{v}, true, nova.ImageRequest{TPMVersion: "2.0"}); plans[0].NearMisses != nil {
		t.Errorf("none: %+v", plans[0].NearMisses)
	}
}
