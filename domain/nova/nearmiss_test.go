package nova

import (
	"reflect"
	"testing"
)

// TestNearMissKeys: a key Nova ignores that stands for a vTPM key, one
// edit away, without its prefix or in the other object's spelling, is
// named with the key Nova reads; Nova's own keys, the other kind's keys
// where they belong and unrelated keys are not.
func TestNearMissKeys(t *testing.T) {
	miss := func(key string, kind KeyKind, want string, r NearMissReason) NearMiss {
		return NearMiss{Key: key, Kind: kind, Want: want, Reason: r}
	}
	for _, tc := range []struct {
		name string
		keys []string
		kind KeyKind
		want []NearMiss
	}{
		{"image typo: a letter left out", []string{"hw_tpm_verion"}, ImageKeys, []NearMiss{miss("hw_tpm_verion", ImageKeys, ImageTPMVersion, MissTypo)}},
		{"image typo: two letters swapped", []string{"hw_tpm_modle"}, ImageKeys, []NearMiss{miss("hw_tpm_modle", ImageKeys, ImageTPMModel, MissTypo)}},
		{"image typo: a letter added", []string{"hw_tpm_versions"}, ImageKeys, []NearMiss{miss("hw_tpm_versions", ImageKeys, ImageTPMVersion, MissTypo)}},
		{"image typo: a dash for an underscore", []string{"hw-tpm_version"}, ImageKeys, []NearMiss{miss("hw-tpm_version", ImageKeys, ImageTPMVersion, MissTypo)}},
		{"image: upper case", []string{"HW_TPM_VERSION"}, ImageKeys, []NearMiss{miss("HW_TPM_VERSION", ImageKeys, ImageTPMVersion, MissTypo)}},
		{"image: no prefix", []string{"tpm_version", "tpm_model"}, ImageKeys, []NearMiss{miss("tpm_model", ImageKeys, ImageTPMModel, MissPrefix), miss("tpm_version", ImageKeys, ImageTPMVersion, MissPrefix)}},
		{"image: no prefix and a typo", []string{"tpm_verison"}, ImageKeys, []NearMiss{miss("tpm_verison", ImageKeys, ImageTPMVersion, MissPrefix)}},
		{"image: the flavor's spelling", []string{"hw:tpm_version", "hw:tpm_model"}, ImageKeys, []NearMiss{miss("hw:tpm_model", ImageKeys, ImageTPMModel, MissOtherKind), miss("hw:tpm_version", ImageKeys, ImageTPMVersion, MissOtherKind)}},
		{"flavor typo", []string{"hw:tpm_verison"}, FlavorKeys, []NearMiss{miss("hw:tpm_verison", FlavorKeys, FlavorTPMVersion, MissTypo)}},
		{"flavor typo: secret security", []string{"hw:tpm_secret_securty"}, FlavorKeys, []NearMiss{miss("hw:tpm_secret_securty", FlavorKeys, FlavorTPMSecretSecurity, MissTypo)}},
		{"flavor: no prefix", []string{"tpm_version"}, FlavorKeys, []NearMiss{miss("tpm_version", FlavorKeys, FlavorTPMVersion, MissPrefix)}},
		{"flavor: the image's spelling", []string{"hw_tpm_version", "hw_tpm_model", "hw_tpm_secret_security"}, FlavorKeys, []NearMiss{
			miss("hw_tpm_model", FlavorKeys, FlavorTPMModel, MissOtherKind), miss("hw_tpm_secret_security", FlavorKeys, FlavorTPMSecretSecurity, MissOtherKind), miss("hw_tpm_version", FlavorKeys, FlavorTPMVersion, MissOtherKind)}},
		{"flavor: the image's spelling with a typo", []string{"hw_tpm_verison"}, FlavorKeys, []NearMiss{miss("hw_tpm_verison", FlavorKeys, FlavorTPMVersion, MissOtherKind)}},
		{"a typo beside the right key is still named", []string{"hw_tpm_version", "hw_tpm_verion"}, ImageKeys, []NearMiss{miss("hw_tpm_verion", ImageKeys, ImageTPMVersion, MissTypo)}},
		{"Nova's own image keys", []string{ImageTPMVersion, ImageTPMModel}, ImageKeys, nil},
		{"Nova's own flavor keys", []string{FlavorTPMVersion, FlavorTPMModel, FlavorTPMSecretSecurity}, FlavorKeys, nil},
		// no release reads it from an image; Decide notes it
		{"image hw_tpm_secret_security", []string{"hw_tpm_secret_security", "hw:tpm_secret_security"}, ImageKeys, nil},
		{"two edits away", []string{"hw_tpm_vrsoin", "hw:tpm_mdl"}, ImageKeys, nil},
		{"unrelated keys", []string{"hw_firmware_type", "hw_machine_type", "os_secure_boot", "hw_vif_model", "hw:cpu_policy", "tpm", "version", "hw_tpm", ""}, ImageKeys, nil},
		{"unrelated specs", []string{"hw:cpu_policy", "hw:mem_page_size", "trait:COMPUTE_SECURITY_TPM_2_0", "hw:tpm", "resources:VCPU"}, FlavorKeys, nil},
	} {
		if got := NearMissKeys(tc.keys, tc.kind); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v\n got %+v\nwant %+v", tc.name, tc.keys, got, tc.want)
		}
	}
}

// TestNearMissEffects: what a missed key does to the decision: a missed
// version leaves the guest without a vTPM unless the other object asked
// for one; a missed model or mode leaves the default.
func TestNearMissEffects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		specs map[string]string
		props map[string]string
		rel   Release
		want  []NearMissEffect
	}{
		{"image version missed: no vTPM", nil, map[string]string{"hw_tpm_verion": "2.0"}, Zed, []NearMissEffect{EffectNoVTPM}},
		{"flavor version missed: no vTPM", map[string]string{"hw:tpm_verison": "2.0"}, nil, Zed, []NearMissEffect{EffectNoVTPM}},
		{"flavor without the prefix: no vTPM", map[string]string{"tpm_version": "2.0"}, nil, Gazpacho, []NearMissEffect{EffectNoVTPM}},
		{"flavor in the image's spelling: no vTPM", map[string]string{"hw_tpm_version": "2.0"}, nil, Gazpacho, []NearMissEffect{EffectNoVTPM}},
		{"version missed on the image, asked by the flavor", map[string]string{FlavorTPMVersion: "2.0"}, map[string]string{"hw_tpm_verion": "2.0"}, Zed, []NearMissEffect{""}},
		{"model missed: the default", map[string]string{FlavorTPMVersion: "2.0", "hw:tpm_modle": "tpm-crb"}, nil, Zed, []NearMissEffect{EffectDefaultModel}},
		{"model missed, set on the image", map[string]string{FlavorTPMVersion: "2.0", "hw:tpm_modle": "tpm-crb"}, map[string]string{ImageTPMModel: "tpm-crb"}, Zed, []NearMissEffect{""}},
		{"mode missed: the default", map[string]string{FlavorTPMVersion: "2.0", "hw_tpm_secret_security": "host"}, nil, Gazpacho, []NearMissEffect{EffectDefaultSecretSecurity}},
		{"no vTPM on a release without one anyway", nil, map[string]string{"hw_tpm_verion": "2.0"}, Ussuri, []NearMissEffect{""}},
		{"none", map[string]string{FlavorTPMVersion: "2.0"}, map[string]string{"hw_firmware_type": "uefi"}, Zed, nil},
	} {
		f, i := Flavor{Name: "f", ExtraSpecs: tc.specs}, Image{Name: "i", Properties: tc.props}
		var got []NearMissEffect
		for _, m := range NearMisses(f, i, Decide(f, i, tc.rel)) {
			got = append(got, m.Effect)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestPlansNameNearMisses: image and flavor plans name the keys the object
// keeps once changed that Nova ignores; a key the change removes is not.
func TestPlansNameNearMisses(t *testing.T) {
	img := CloudImage{ID: "i1", Image: Image{Name: "win", Properties: map[string]string{"hw_tpm_modle": "tpm-crb", "os_type": "windows"}}}
	plans, err := PlanImages([]CloudImage{img}, true, ImageRequest{TPMVersion: "2.0"})
	if err != nil || !reflect.DeepEqual(plans[0].NearMisses, []NearMiss{{Key: "hw_tpm_modle", Kind: ImageKeys, Want: ImageTPMModel, Reason: MissTypo}}) {
		t.Errorf("image: %v %+v", err, plans)
	}
	fl := CloudFlavor{ID: "f1", Flavor: Flavor{Name: "w1", ExtraSpecs: map[string]string{"hw_tpm_version": "2.0", "tpm_model": "tpm-crb"}}}
	plans, err = PlanFlavors([]CloudFlavor{fl}, map[string]string{FlavorTPMVersion: "2.0"}, nil, Zed)
	want := []NearMiss{{Key: "hw_tpm_version", Kind: FlavorKeys, Want: FlavorTPMVersion, Reason: MissOtherKind}, {Key: "tpm_model", Kind: FlavorKeys, Want: FlavorTPMModel, Reason: MissPrefix}}
	if err != nil || !reflect.DeepEqual(plans[0].NearMisses, want) {
		t.Errorf("flavor: %v %+v", err, plans)
	}
	plans, _ = PlanFlavors([]CloudFlavor{fl}, nil, []string{"hw_tpm_version", "tpm_model"}, Zed)
	if plans[0].NearMisses != nil {
		t.Errorf("removed keys are named: %+v", plans[0].NearMisses)
	}
}
