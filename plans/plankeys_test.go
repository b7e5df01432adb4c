package plans

import (
	"strings"
	"testing"
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
