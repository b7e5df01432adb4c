package nova

import (
	"reflect"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	cur := map[string]string{"a": "1", "b": "2", "c": "3"}
	got := Diff("img", "id1", cur, map[string]string{"a": "1", "b": "20", "d": "4"}, []string{"c", "x", "d"})
	want := []Change{
		{"img", "id1", "a", "1", "1", Unchanged},
		{"img", "id1", "b", "2", "20", Replaced},
		{"img", "id1", "c", "3", "", Removed},
		{"img", "id1", "d", "", "4", Added}, // set wins over unset of the same key
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Diff:\n%v\nwant\n%v", got, want)
	}
	if w := Writes(got); len(w) != 3 {
		t.Errorf("Writes kept %d, want 3", len(w))
	}
	after := Apply(cur, got)
	if !reflect.DeepEqual(after, map[string]string{"a": "1", "b": "20", "d": "4"}) {
		t.Errorf("Apply: %v", after)
	}
	if len(Writes(Diff("x", "", after, map[string]string{"a": "1", "b": "20", "d": "4"}, []string{"c"}))) != 0 {
		t.Error("a second identical run must plan no writes")
	}
}

func TestPlanImageSet(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]string
		req   ImageRequest
		want  map[string]string
		err   string
		note  string
	}{
		{"plain version", nil, ImageRequest{TPMVersion: "2.0"}, map[string]string{"hw_tpm_version": "2.0"}, "", ""},
		{"version + model", nil, ImageRequest{TPMVersion: "2.0", TPMModel: "tpm-crb"}, map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb"}, "", ""},
		{"no version", nil, ImageRequest{TPMModel: "tpm-crb"}, nil, "tpm_version is required without the Windows profile", ""},
		{"bad version", nil, ImageRequest{TPMVersion: "3"}, nil, `invalid tpm_version "3"`, ""},
		{"bad model", nil, ImageRequest{TPMVersion: "2.0", TPMModel: "crb"}, nil, `invalid tpm_model "crb"`, ""},
		{"crb + 1.2 flags", nil, ImageRequest{TPMVersion: "1.2", TPMModel: "tpm-crb"}, nil, "TPM model CRB is only valid with TPM version 2.0.", ""},
		{"1.2 on a crb image", map[string]string{"hw_tpm_model": "tpm-crb"}, ImageRequest{TPMVersion: "1.2"}, nil, "TPM model CRB is only valid with TPM version 2.0.", ""},
		{"windows profile", nil, ImageRequest{Windows: true}, map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb", "hw_firmware_type": "uefi",
			"hw_machine_type": "q35", "os_secure_boot": "required", "os_type": "windows", "os_distro": "windows"}, "", ""},
		{"windows with tis", nil, ImageRequest{Windows: true, TPMModel: "tpm-tis"}, map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-tis", "hw_firmware_type": "uefi",
			"hw_machine_type": "q35", "os_secure_boot": "required", "os_type": "windows", "os_distro": "windows"}, "", ""},
		{"windows refuses 1.2", nil, ImageRequest{Windows: true, TPMVersion: "1.2"}, nil, "windows needs TPM 2.0", ""},
		{"windows keeps versioned q35", map[string]string{"hw_machine_type": "pc-q35-7.2"}, ImageRequest{Windows: true}, nil, "", ""},
		{"windows ide -> sata", map[string]string{"hw_disk_bus": "ide"}, ImageRequest{Windows: true}, nil, "", "ide -> sata"},
		{"windows keeps virtio", map[string]string{"hw_disk_bus": "virtio", "hw_vif_model": "e1000e"}, ImageRequest{Windows: true}, nil, "", "hw_vif_model e1000e kept"},
		{"windows warns stateless", map[string]string{"hw_firmware_stateless": "True"}, ImageRequest{Windows: true}, nil, "", "hw_firmware_stateless=true"},
		{"windows secure boot optional", map[string]string{"os_secure_boot": "optional"}, ImageRequest{Windows: true}, nil, "", "optional -> required"},
	}
	for _, c := range cases {
		set, notes, err := PlanImageSet(c.props, c.req)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.want != nil && !reflect.DeepEqual(set, c.want) {
			t.Errorf("%s: set %v, want %v", c.name, set, c.want)
		}
		if c.note != "" && !strings.Contains(strings.Join(notes, "\n"), c.note) {
			t.Errorf("%s: notes %q lack %q", c.name, notes, c.note)
		}
		if c.props["hw_machine_type"] == "pc-q35-7.2" && set["hw_machine_type"] != "pc-q35-7.2" {
			t.Errorf("%s: machine type %q", c.name, set["hw_machine_type"])
		}
		if c.props["hw_disk_bus"] == "ide" && set["hw_disk_bus"] != "sata" {
			t.Errorf("%s: disk bus %q", c.name, set["hw_disk_bus"])
		}
	}
}

func TestPlanImageUnset(t *testing.T) {
	props := map[string]string{"hw_tpm_version": "2.0", "hw_machine_type": "pc-q35-8.0", "os_type": "linux", "os_distro": "windows", "hw_firmware_type": "uefi"}
	got := PlanImageUnset(props, true)
	want := []string{"hw_tpm_version", "hw_tpm_model", "hw_tpm_secret_security", "hw_firmware_type", "hw_machine_type", "os_distro"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("unset --windows: %v, want %v (os_type=linux was not set by the profile)", got, want)
	}
	if got := PlanImageUnset(props, false); len(got) != 3 {
		t.Errorf("unset: %v", got)
	}
}

func TestValidateFlavorRequest(t *testing.T) {
	cases := []struct {
		r   FlavorRequest
		rel Release
		err string
	}{
		{FlavorRequest{TPMVersion: "2.0", TPMModel: "tpm-crb"}, Zed, ""},
		{FlavorRequest{TPMVersion: "2.0", SecretSecurity: "host"}, Gazpacho, ""},
		{FlavorRequest{TPMVersion: "2.0", SecretSecurity: "host"}, Flamingo, "needs Nova 2026.1 (Gazpacho) or later; this cloud runs 2025.2 Flamingo (nova 32)"},
		{FlavorRequest{SecretSecurity: "vault"}, Gazpacho, `invalid secret_security "vault"`},
		{FlavorRequest{TPMVersion: "1.2", TPMModel: "tpm-crb"}, Zed, "CRB"},
	}
	for _, c := range cases {
		err := ValidateFlavorRequest(c.r, c.rel)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%+v on %s: %v, want %q", c.r, c.rel, err, c.err)
		}
	}
}

func TestPlanFlavors(t *testing.T) {
	fl := []CloudFlavor{{ID: "1", Flavor: Flavor{Name: "w1", ExtraSpecs: map[string]string{"hw:tpm_model": "tpm-crb", "hw:cpu_policy": "dedicated"}}}}
	if _, err := PlanFlavors(fl, map[string]string{"hw:tpm_version": "1.2"}, nil, Zed); err == nil || !strings.Contains(err.Error(), "CRB") {
		t.Errorf("1.2 on a CRB flavor: %v", err)
	}
	plans, err := PlanFlavors(fl, nil, []string{"hw:tpm_version", "hw:tpm_model", "hw:tpm_secret_security"}, Zed)
	if err != nil || len(Writes(plans[0].Changes)) != 1 || plans[0].Changes[0].Key != "hw:tpm_model" {
		t.Errorf("unset: %+v %v", plans, err)
	}
}

func TestSummarizeImage(t *testing.T) {
	full, _, _ := PlanImageSet(nil, ImageRequest{Windows: true})
	if s := SummarizeImage(full); s.WindowsProfile != "complete" {
		t.Errorf("full profile: %+v", s)
	}
	if s := SummarizeImage(map[string]string{"os_distro": "windows", "hw_tpm_version": "2.0"}); !strings.HasPrefix(s.WindowsProfile, "partial: missing ") || !strings.Contains(s.WindowsProfile, "os_secure_boot=required") {
		t.Errorf("partial: %+v", s)
	}
	if s := SummarizeImage(map[string]string{"os_distro": "ubuntu", "hw_firmware_type": "uefi"}); s.WindowsProfile != "none" {
		t.Errorf("linux: %+v", s)
	}
}
