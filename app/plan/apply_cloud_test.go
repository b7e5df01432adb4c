package plan

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// DiffPlan and ApplyConvergence against the local cloud's captured
// answers (strict fakecloud: every request must be one the route
// declares, writes at Nova's validating microversion).

func fixtureFlavorID(c *fakecloud.Cloud) string {
	for _, f := range c.FixtureObjects("flavors-detail", "flavors") {
		if f["name"] == fakecloud.FixtureFlavor {
			return f["id"].(string)
		}
	}
	return ""
}

func fixtureImageID(c *fakecloud.Cloud) string {
	for _, i := range c.FixtureObjects("images", "images") {
		if i["name"] == fakecloud.FixtureImage {
			return i["id"].(string)
		}
	}
	return ""
}

// One plan that needs every kind of write: an image tagged for Windows and
// stamped with its one VM's source, an existing flavor's model changed, a
// private flavor created with its specs; an image not in Glance yet is
// Missing, not an error.
func TestDiffAndApplyAgainstFixtures(t *testing.T) {
	c := fakecloud.New(t).Standard()
	img, fl := fixtureImageID(c), fixtureFlavorID(c)
	c.Handle("PATCH /image/v2/images/"+img, fakecloud.JSON(200, `{"id":"`+img+`","name":"`+fakecloud.FixtureImage+`","status":"active"}`))
	c.Handle("PUT /compute/v2.1/flavors/"+fl+"/os-extra_specs/hw:tpm_model [compute 2.86]", fakecloud.JSON(200, `{"hw:tpm_model":"tpm-tis"}`))
	c.Handle("POST /compute/v2.1/flavors [compute 2.86]", fakecloud.JSON(200, `{"flavor":{"id":"f9","name":"vtpm-new","vcpus":2,"ram":4096,"disk":40,"os-flavor-access:is_public":false}}`))
	c.Handle("POST /compute/v2.1/flavors/f9/os-extra_specs [compute 2.86]", fakecloud.JSON(200, `{"extra_specs":{"hw:tpm_version":"2.0"}}`))
	private := false
	p := &migration.Plan{Version: 1,
		Images: []migration.PlanImage{{Name: fakecloud.FixtureImage, TPMVersion: "2.0", TPMModel: "tpm-crb", Windows: true}, {Name: "not-converted", TPMVersion: "2.0"}},
		Flavors: []migration.PlanFlavor{{Name: fakecloud.FixtureFlavor, VCPUs: 1, RAM: 64, Disk: 1, TPMVersion: "2.0", TPMModel: "tpm-tis"},
			{Name: "vtpm-new", VCPUs: 2, RAM: 4096, Disk: 40, Public: &private, TPMVersion: "2.0"}},
		VMs: []migration.PlanVM{{Name: "vm1", BIOSUUID: "4211-aa", TargetImage: fakecloud.FixtureImage}},
	}
	ctx := context.Background()
	gl, cc := c.ServiceClient("image"), c.ServiceClient("compute/v2.1")
	conv, err := DiffPlan(ctx, gl, cc, p, nova.Zed)
	if err != nil {
		t.Fatal(err)
	}
	if len(conv.Missing) != 1 || conv.Missing[0] != "not-converted" || len(conv.Images) != 1 || len(conv.Flavors) != 2 {
		t.Fatalf("diff %+v", conv)
	}
	writes := map[string]string{}
	for _, w := range nova.Writes(conv.Images[0].Changes) {
		writes[w.Key] = w.New
	}
	if writes[migration.SourceKey] != p.VMs[0].Source() || writes["hw_firmware_type"] != "uefi" {
		t.Errorf("image writes %v", writes)
	}
	if w := nova.Writes(conv.Flavors[0].Changes); len(w) != 1 || w[0].Key != nova.FlavorTPMModel || w[0].Action != nova.Replaced {
		t.Errorf("existing flavor writes %+v", w)
	}
	ApplyConvergence(ctx, gl, cc, conv, nova.Zed)
	if conv.Failed() != 0 || conv.Flavors[1].ID != "f9" {
		t.Fatalf("apply: %d failed %+v", conv.Failed(), conv.Flavors)
	}
	patch := c.SentTo("PATCH", "/image/v2/images/"+img)
	if len(patch) != 1 || !strings.Contains(patch[0].Body, `"path":"/vtpmctl:source"`) {
		t.Errorf("image patch %v", patch)
	}
	create := c.SentTo("POST", "/compute/v2.1/flavors")
	if len(create) != 1 || !strings.Contains(create[0].Body, `"os-flavor-access:is_public":false`) || !strings.Contains(create[0].Body, `"vcpus":2`) {
		t.Errorf("flavor create %v", create)
	}
	if specs := c.SentTo("POST", "/compute/v2.1/flavors/f9/os-extra_specs"); len(specs) != 1 || !strings.Contains(specs[0].Body, `"hw:tpm_version":"2.0"`) {
		t.Errorf("new flavor's specs %v", specs)
	}
}

// A flavor write refused by Nova fails that object only, and says so.
func TestApplyConvergenceFlavorRefused(t *testing.T) {
	c := fakecloud.New(t).Standard()
	c.Handle("POST /compute/v2.1/flavors [compute 2.86]", fakecloud.JSON(403, `{"forbidden":{"message":"Policy doesn't allow os_compute_api:os-flavor-manage:create"}}`))
	p := &migration.Plan{Version: 1, Flavors: []migration.PlanFlavor{{Name: "vtpm-new", VCPUs: 2, RAM: 4096, Disk: 40, TPMVersion: "2.0"}}}
	ctx := context.Background()
	cc := c.ServiceClient("compute/v2.1")
	conv, err := DiffPlan(ctx, c.ServiceClient("image"), cc, p, nova.Zed)
	if err != nil {
		t.Fatal(err)
	}
	ApplyConvergence(ctx, c.ServiceClient("image"), cc, conv, nova.Zed)
	if conv.Failed() != 1 || conv.Flavors[0].Err == nil || !strings.Contains(conv.Flavors[0].Err.Error(), "403") {
		t.Errorf("%d failed: %v", conv.Failed(), conv.Flavors[0].Err)
	}
}

// What DiffPlan refuses, before anything is written: each names the
// object, and a plan the cloud cannot match as written is a PlanError or
// a FlavorSizeError (usage), a cloud failure neither.
func TestDiffPlanRefusals(t *testing.T) {
	dupFlavors := `{"flavors":[{"id":"a","name":"dup","vcpus":1,"ram":64,"disk":1},{"id":"b","name":"dup","vcpus":1,"ram":64,"disk":1}]}`
	for _, tc := range []struct {
		name  string
		route string
		body  string
		code  int
		plan  migration.Plan
		want  string
		usage bool
	}{
		{"image lookup fails", fakecloud.ImagesByName, `{}`, 500, migration.Plan{Images: []migration.PlanImage{{Name: "w"}}}, "image w:", false},
		{"flavor list fails", fakecloud.Flavors, `{}`, 503, migration.Plan{Flavors: []migration.PlanFlavor{{Name: "f"}}}, "503", false},
		{"bad image request", "", "", 0, migration.Plan{Images: []migration.PlanImage{{Name: fakecloud.FixtureImage, TPMVersion: "3.0"}}}, "image " + fakecloud.FixtureImage + ":", false},
		{"bad flavor request", "", "", 0, migration.Plan{Flavors: []migration.PlanFlavor{{Name: "f", TPMVersion: "2.0", TPMModel: "tpm-xyz"}}}, "flavor f:", false},
		{"ambiguous flavor", fakecloud.Flavors, dupFlavors, 200, migration.Plan{Flavors: []migration.PlanFlavor{{Name: "dup", VCPUs: 1, RAM: 64, Disk: 1}}}, "flavor dup: the name is ambiguous on the cloud", true},
		{"flavor of another size", "", "", 0, migration.Plan{Flavors: []migration.PlanFlavor{{Name: fakecloud.FixtureFlavor, VCPUs: 8, RAM: 64, Disk: 1}}}, "flavors[0]: flavor " + fakecloud.FixtureFlavor + " exists with 1 vCPU", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakecloud.New(t).Standard()
			if tc.route != "" {
				c.Handle(tc.route, fakecloud.JSON(tc.code, tc.body))
			}
			p := tc.plan
			p.Version = 1
			_, err := DiffPlan(context.Background(), c.ServiceClient("image"), c.ServiceClient("compute/v2.1"), &p, nova.Zed)
			var pe *PlanError
			usage := errors.As(err, &pe) || errors.Is(err, nova.ErrFlavorExists)
			if err == nil || !strings.Contains(err.Error(), tc.want) || usage != tc.usage {
				t.Errorf("%v (usage %v), want %q (usage %v)", err, usage, tc.want, tc.usage)
			}
			if n := c.Count("PATCH") + c.Count("POST /compute") + c.Count("PUT"); n != 0 {
				t.Errorf("%d writes", n)
			}
		})
	}
}

// The cloud's flavors as a catalogue: sizes, visibility and vTPM specs,
// from one flavor list at the extra-specs microversion.
func TestCatalogueFromCloud(t *testing.T) {
	c := fakecloud.New(t).Standard()
	cat, err := CatalogueFromCloud(context.Background(), c.ServiceClient("compute/v2.1"))
	if err != nil || len(cat) != 2 {
		t.Fatalf("%+v %v", cat, err)
	}
	for _, f := range cat {
		if f.Name == fakecloud.FixtureFlavor && (f.TPMVersion != "2.0" || f.TPMModel != "tpm-crb" || f.Public == nil || !*f.Public || f.RAM != 64) {
			t.Errorf("%+v", f)
		}
	}
	c.Handle(fakecloud.Flavors, fakecloud.JSON(http.StatusInternalServerError, `{}`))
	if _, err := CatalogueFromCloud(context.Background(), c.ServiceClient("compute/v2.1")); err == nil {
		t.Error("a failed list gave a catalogue")
	}
}
