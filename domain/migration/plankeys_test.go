package migration

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestPlanTPMKeysNamed: a bad tpm_version/tpm_model in a plan is reported
// with the plan's key and entry, never a CLI flag the plan has not got.
func TestPlanTPMKeysNamed(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"image version", `images: [{name: x, tpm_version: "3.0"}]`, `images[0] (x): tpm_version "3.0" (choose 1.2 or 2.0)`},
		{"image model", `images: [{name: x, tpm_version: "2.0", tpm_model: tpm-xyz}]`, `images[0] (x): tpm_model "tpm-xyz"`},
		{"image pair", `images: [{name: x, tpm_version: "1.2", tpm_model: tpm-crb}]`, `images[0] (x): tpm_model tpm-crb with tpm_version 1.2: Nova refuses it`},
		{"windows 1.2", `images: [{name: x, tpm_version: "1.2", windows: true}]`, `images[0] (x): windows: true needs tpm_version 2.0`},
		{"flavor version", `flavors: [{name: f, vcpus: 1, ram: 1, disk: 1, tpm_version: "3.0"}]`, `flavors[0] (f): tpm_version "3.0"`},
		{"flavor pair", `flavors: [{name: f, vcpus: 1, ram: 1, disk: 1, tpm_version: "1.2", tpm_model: tpm-crb}]`, `flavors[0] (f): tpm_model tpm-crb with tpm_version 1.2`},
	} {
		_, err := ReadPlan(strings.NewReader("version: 1\n"+tc.yaml+"\n"), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), "p.yaml: "+tc.want) || strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

// TestPlanSecretSecurity: a flavor's secret_security is one of Nova's
// modes (nova.SecretModes, every one accepted), or absent; anything else
// is refused with the plan's key and Nova's list.
func TestPlanSecretSecurity(t *testing.T) {
	flavor := func(mode string) string {
		return "version: 1\nflavors: [{name: f, vcpus: 1, ram: 1, disk: 1, tpm_version: \"2.0\", secret_security: " + mode + "}]\n"
	}
	cases := []struct{ mode, want string }{
		{`""`, ""},
		{"Deployment", `flavors[0] (f): secret_security "Deployment" (choose user, host or deployment)`},
		{"users", `flavors[0] (f): secret_security "users" (choose user, host or deployment)`},
	}
	for _, m := range nova.SecretModes {
		cases = append(cases, struct{ mode, want string }{string(m), ""})
	}
	for _, tc := range cases {
		p, err := ReadPlan(strings.NewReader(flavor(tc.mode)), "p.yaml")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.mode, err)
		case tc.want == "" && nova.SecretMode(p.Flavors[0].SecretSecurity) != nova.SecretMode(strings.Trim(tc.mode, `"`)):
			t.Errorf("%s: read as %q", tc.mode, p.Flavors[0].SecretSecurity)
		case tc.want != "" && (err == nil || err.Error() != "p.yaml: "+tc.want):
			t.Errorf("%s: %v\nwant p.yaml: %s", tc.mode, err, tc.want)
		}
	}
}

// TestPlanNearMisses: a plan image's properties key that Nova ignores but
// that stands for a vTPM key is named with its entry and the key Nova
// reads; the plan is still valid (Nova would say nothing either).
func TestPlanNearMisses(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []KeyNearMiss
	}{
		{"typo", `images: [{name: w, properties: {hw_tpm_verion: "2.0"}}]`, []KeyNearMiss{{Entry: "images[0] (w)", Image: "w",
			NearMiss: nova.NearMiss{Key: "hw_tpm_verion", Kind: nova.ImageKeys, Want: nova.ImageTPMVersion, Reason: nova.MissTypo}}}},
		{"the flavor's spelling, second image", `images: [{name: a}, {name: b, tpm_version: "2.0", properties: {"hw:tpm_model": tpm-crb, os_type: windows}}]`, []KeyNearMiss{{Entry: "images[1] (b)", Image: "b",
			NearMiss: nova.NearMiss{Key: "hw:tpm_model", Kind: nova.ImageKeys, Want: nova.ImageTPMModel, Reason: nova.MissOtherKind}}}},
		{"no prefix", `images: [{name: w, properties: {tpm_version: "2.0"}}]`, []KeyNearMiss{{Entry: "images[0] (w)", Image: "w",
			NearMiss: nova.NearMiss{Key: "tpm_version", Kind: nova.ImageKeys, Want: nova.ImageTPMVersion, Reason: nova.MissPrefix}}}},
		{"none", `images: [{name: w, tpm_version: "2.0", properties: {hw_firmware_type: uefi}}]`, nil},
	} {
		p, err := ReadPlan(strings.NewReader("version: 1\n"+tc.yaml+"\n"), "p.yaml")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := p.NearMisses(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}
