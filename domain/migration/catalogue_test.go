package migration

import (
	"strings"
	"testing"
)

func TestReadCatalogue(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"ok", "flavors:\n- {name: m1, vcpus: 2, ram: 4096, disk: 40, tpm_version: \"2.0\"}\n", ""},
		{"unknown key", "flavors:\n- {name: m1, vcpu: 2}\n", "cat.yaml: "},
		{"none", "flavors: []\n", "cat.yaml: no flavors"},
		{"invalid", "flavors:\n- {name: m1, vcpus: 2, ram: 4096, disk: 40, tpm_version: \"3.0\"}\n", "cat.yaml: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fl, err := ReadCatalogue(strings.NewReader(tc.yaml), "cat.yaml")
			if tc.want == "" {
				if err != nil || len(fl) != 1 || fl[0].Name != "m1" || fl[0].VCPUs != 2 {
					t.Errorf("%+v %v", fl, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
}
