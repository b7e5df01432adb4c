package nova

import (
	"strings"
	"testing"
)

func TestDecideVolume(t *testing.T) {
	crb := map[string]string{"image_id": "i", "image_name": "win11", "hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb"}
	for _, c := range []struct {
		name           string
		vol            BootVolume
		specs          map[string]string
		rel            Release
		vtpm           bool
		model, errMsg  string
		kind           ErrorKind
		stage          Stage
		noteContaining string
	}{
		{name: "tagged volume, plain flavor", vol: BootVolume{Bootable: true, ImageMetadata: crb}, rel: Zed, vtpm: true, model: "tpm-crb"},
		{name: "plain volume, vTPM flavor", vol: BootVolume{Bootable: true, ImageMetadata: map[string]string{"image_id": "i"}},
			specs: map[string]string{"hw:tpm_version": "2.0"}, rel: Zed, vtpm: true, model: "tpm-tis"},
		// Nova reads image_meta.name for the message; a volume's has none.
		{name: "conflicting model", vol: BootVolume{Name: "v", Bootable: true, ImageMetadata: crb},
			specs: map[string]string{"hw:tpm_model": "tpm-tis"}, rel: Zed, errMsg: "NotImplementedError",
			kind: KindFlavorImageConflict, stage: StageScheduling, noteContaining: "hw:tpm_model extra spec explicitly set to tpm-tis"},
		{name: "conflict on the newest release too", vol: BootVolume{Bootable: true, ImageMetadata: crb},
			specs: map[string]string{"hw:tpm_version": "1.2"}, rel: Gazpacho, errMsg: "NotImplementedError", kind: KindFlavorImageConflict, stage: StageScheduling},
		{name: "not bootable comes first", vol: BootVolume{ID: "v1", ImageMetadata: crb}, specs: map[string]string{"hw:tpm_model": "tpm-tis"},
			rel: Zed, errMsg: "Block Device v1 is not bootable.", kind: KindVolumeNotBootable, stage: StageServerCreate},
		// image_name etc. are attributes, never properties: no vTPM from them.
		{name: "attributes are not properties", vol: BootVolume{Bootable: true, ImageMetadata: map[string]string{"image_name": "hw_tpm_version"}}, rel: Zed},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := DecideVolume(Flavor{Name: "f", ExtraSpecs: c.specs}, c.vol, c.rel)
			if d.VTPM != c.vtpm || d.Model != c.model {
				t.Errorf("vtpm %v model %q, want %v %q", d.VTPM, d.Model, c.vtpm, c.model)
			}
			if c.errMsg == "" {
				if d.Error != nil {
					t.Errorf("refused: %s", d.Error.Message)
				}
				return
			}
			if d.Error == nil || d.Error.Message != c.errMsg || d.Error.Kind != c.kind || d.Error.Stage != c.stage {
				t.Fatalf("error %+v, want %q (%s, %s)", d.Error, c.errMsg, c.kind, c.stage)
			}
			if c.noteContaining != "" && !strings.Contains(strings.Join(d.Notes, "\n"), c.noteContaining) {
				t.Errorf("notes %q lack Nova's intended message", d.Notes)
			}
		})
	}
}
