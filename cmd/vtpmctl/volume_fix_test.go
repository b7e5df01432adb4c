package main

import (
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
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
		{"connection flags from the command line", &imageChangeOptions{Global: &globalOptions{
			Cloud:   cloud.Options{Cloud: "prod", CACert: "/etc/ssl/our ca.pem", Insecure: true, Timeout: 90 * time.Second},
			cmdLine: map[string]bool{"os-cacert": true, "insecure": true, "timeout": true}}, propertyChange: propertyChange{Set: true, Windows: true}}, false,
			"vtpmctl --os-cloud prod --os-cacert '/etc/ssl/our ca.pem' --insecure --timeout 1m30s volume set --select image_id=i1 --windows"},
		{"connection flags from the environment", &imageChangeOptions{Global: &globalOptions{
			Cloud:   cloud.Options{Cloud: "prod", CACert: "/etc/ssl/ca.pem", Insecure: true, Timeout: 90 * time.Second},
			cmdLine: map[string]bool{"os-cacert": false, "insecure": false}}, propertyChange: propertyChange{Set: true, Windows: true}}, false,
			"vtpmctl --os-cloud prod volume set --select image_id=i1 --windows"},
	} {
		if got := volumeFixCommand(c.o, "i1", c.admin); got != c.want {
			t.Errorf("%s: fix command %q, want %q", c.name, got, c.want)
		}
	}
}

// TestVolumeFixCommandFlagOrigin: the suggested command repeats the
// connection flags typed on the command line, before or after the
// subcommand, and not those the environment gave (it is still set).
func TestVolumeFixCommandFlagOrigin(t *testing.T) {
	volumeCloud(t)
	fix := "volume set --select image_id=15efa622-9c42-48a2-b81c-486deb166f12 --windows --all-projects"
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"none", nil, nil, "vtpmctl --os-cloud fake " + fix},
		{"before the subcommand", nil, []string{"--insecure", "--timeout", "45s"}, "vtpmctl --os-cloud fake --insecure --timeout 45s " + fix},
		{"environment", map[string]string{"OS_INSECURE": "true", "VTPMCTL_TIMEOUT": "45s"}, nil, "vtpmctl --os-cloud fake " + fix},
		{"after the subcommand over the environment", map[string]string{"VTPMCTL_TIMEOUT": "45s"}, []string{"image", "set", "--timeout", "50s"},
			"vtpmctl --os-cloud fake --timeout 50s " + fix},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			args := append([]string{"--os-cloud", "fake"}, c.args...)
			if len(c.args) == 0 || c.args[0] != "image" {
				args = append(args, "image", "set")
			}
			args = append(args, fakecloud.FixtureImage, "--windows")
			_, errs, code := runCLI(t, args...)
			if code != 0 || !strings.Contains(errs, "to change them too: "+c.want+"\n") {
				t.Errorf("exit %d, stderr:\n%s\nwant the command %q", code, errs, c.want)
			}
		})
	}
}
