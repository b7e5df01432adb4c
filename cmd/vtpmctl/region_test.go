package main

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestUnknownRegionIsUsage: a region the catalog does not have is a
// configuration error, exit 2 as docs/output.md says (it was exit 1, "no
// image endpoint"), named with the flag and the regions there are; the
// catalog's Keystone is still reached in any region.
func TestUnknownRegionIsUsage(t *testing.T) {
	fakecloud.New(t)
	out, errs, code := runCLI(t, "--os-cloud", "fake", "--os-region-name", "RegionTwo", "image", "list")
	want := `vtpmctl: region "RegionTwo" is not in the service catalog of cloud "fake" (regions there: RegionOne): check --os-region-name, region_name in clouds.yaml or OS_REGION_NAME` + "\n"
	if code != exitUsage || out != "" || errs != want {
		t.Errorf("exit %d %q\n got %s\nwant %s", code, out, errs, want)
	}
	t.Setenv("OS_REGION_NAME", "RegionTwo")
	if _, errs, code := runCLI(t, "--os-cloud", "fake", "flavor", "list"); code != exitUsage || !strings.Contains(errs, `region "RegionTwo" is not in the service catalog`) {
		t.Errorf("OS_REGION_NAME: exit %d %s", code, errs)
	}
}
