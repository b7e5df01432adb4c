package main

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
)

// TestVolumeFixCommand: the command image set prints for the volumes
// created from the image before the change repeats the change's flags,
// names the cloud (and region) just changed, and quotes every value for
// the shell.
func TestVolumeFixCommand(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     *imageChangeOptions
		admin bool
		want  string
	}{
		{"every flag", &imageChangeOptions{propertyChange: propertyChange{Set: true, Version: "2.0", Model: "tpm-crb", Windows: true}}, true,
			"vtpmctl volume set --select image_id=i1 --tpm-version 2.0 --tpm-model tpm-crb --windows --all-projects"},
		{"unset", &imageChangeOptions{}, false, "vtpmctl volume unset --select image_id=i1"},
		{"the cloud changed", &imageChangeOptions{Global: &globalOptions{Cloud: cloud.Options{Cloud: "prod"}}, propertyChange: propertyChange{Set: true, Windows: true}}, false,
			"vtpmctl --os-cloud prod volume set --select image_id=i1 --windows"},
		{"quoted values", &imageChangeOptions{Global: &globalOptions{Cloud: cloud.Options{Cloud: "my cloud", Region: "Region One"}},
			propertyChange: propertyChange{Set: true, Model: "tpm-crb; rm -rf ~"}}, false,
			"vtpmctl --os-cloud 'my cloud' --os-region-name 'Region One' volume set --select image_id=i1 --tpm-model 'tpm-crb; rm -rf ~'"},
	} {
		if got := volumeFixCommand(c.o, "i1", c.admin); got != c.want {
			t.Errorf("%s: fix command %q, want %q", c.name, got, c.want)
		}
	}
}
