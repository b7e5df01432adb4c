package check

import (
	"context"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestCheckVolumeAllProjects: an admin checks another project's boot
// volume by name; the name is looked up in every project only when asked
// (the strict cloud declares the one list each case may send).
func TestCheckVolumeAllProjects(t *testing.T) {
	const list = "GET /volume/v3/" + fakecloud.ProjectID + "/volumes/detail?limit=1000&name=fx-win11-boot"
	for _, all := range []bool{false, true} {
		c := fakecloud.New(t).Standard()
		decl := list
		if all {
			decl += "&all_tenants=true"
		}
		c.Handle(decl, fakecloud.JSON(200, `{"volumes":[{"id":"9b2e7c40-3f1a-4d8b-8c6e-5a4d3c2b1a01","name":"fx-win11-boot","bootable":"true",
			"volume_image_metadata":{"hw_tpm_version":"2.0","hw_tpm_model":"tpm-crb"}}]}`))
		sess, err := cloud.Connect(context.Background(), cloud.Options{Cloud: "fake", Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Check(context.Background(), sess, Request{Volume: "fx-win11-boot", AllProjects: all})
		if err != nil || !res.Decision.VTPM || res.Decision.Model != "tpm-crb" {
			t.Errorf("all projects %v: %+v, %v", all, res.Decision, err)
		}
		if n := c.Count("GET /volume/v3/" + fakecloud.ProjectID + "/volumes/detail"); n != 1 {
			t.Errorf("all projects %v: %d volume lists, want 1", all, n)
		}
	}
}
