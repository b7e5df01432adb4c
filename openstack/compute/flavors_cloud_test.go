package compute

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Flavor writes, lookups and the release, against the strict fakecloud:
// each write must be the one request the route declares, at 2.86.

// SetFlavorSpecs: one POST for every new key, one PUT per changed key,
// one DELETE per removed key, never a delete-then-create.
func TestSetFlavorSpecs(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("POST /compute/v2.1/flavors/f1/os-extra_specs [compute 2.86]", fakecloud.JSON(200, `{"extra_specs":{}}`))
	c.Handle("PUT /compute/v2.1/flavors/f1/os-extra_specs/hw:tpm_model [compute 2.86]", fakecloud.JSON(200, `{"hw:tpm_model":"tpm-tis"}`))
	c.Handle("DELETE /compute/v2.1/flavors/f1/os-extra_specs/hw:tpm_secret_security [compute 2.86]", fakecloud.JSON(200, ``)) // Nova answers 200 here
	writes := []nova.Change{
		{Key: nova.FlavorTPMVersion, New: "2.0", Action: nova.Added},
		{Key: "trait:COMPUTE_SECURITY_TPM_2_0", New: "required", Action: nova.Added},
		{Key: nova.FlavorTPMModel, Old: "tpm-crb", New: "tpm-tis", Action: nova.Replaced},
		{Key: nova.FlavorTPMSecretSecurity, Old: "user", Action: nova.Removed},
	}
	if err := SetFlavorSpecs(context.Background(), c.ServiceClient("compute/v2.1"), "f1", writes); err != nil {
		t.Fatal(err)
	}
	sent := c.Sent()
	if len(sent) != 3 || sent[0].Method != "POST" || sent[1].Method != "PUT" || sent[2].Method != "DELETE" {
		t.Fatalf("requests %v", sent)
	}
	if b := sent[0].Body; !strings.Contains(b, `"hw:tpm_version":"2.0"`) || !strings.Contains(b, `"trait:COMPUTE_SECURITY_TPM_2_0":"required"`) {
		t.Errorf("one POST with both new keys: %s", b)
	}
}

// AddFlavorAccess names the project in Nova's addTenantAccess action.
func TestAddFlavorAccess(t *testing.T) {
	c := fakecloud.New(t)
	c.Handle("POST /compute/v2.1/flavors/f1/action", fakecloud.JSON(200, `{"flavor_access":[{"flavor_id":"f1","tenant_id":"p1"}]}`))
	if err := AddFlavorAccess(context.Background(), c.ServiceClient("compute/v2.1"), "f1", "p1"); err != nil {
		t.Fatal(err)
	}
	if s := c.SentTo("POST", "/compute/v2.1/flavors/f1/action"); len(s) != 1 || s[0].Body != `{"addTenantAccess":{"tenant":"p1"}}` {
		t.Errorf("%v", s)
	}
}

// A pinned release asks the cloud nothing unless told to detect; an
// unpinned one reads the version document once; its failure is named.
func TestResolveRelease(t *testing.T) {
	ctx := context.Background()
	c := fakecloud.New(t).Standard()
	cc := c.ServiceClient("compute/v2.1")
	r, err := ResolveRelease(ctx, cc, nova.ReleaseEvidence{Flag: nova.Gazpacho}, false)
	if err != nil || r.Release != nova.Gazpacho || len(c.Sent()) != 0 {
		t.Errorf("pinned: %+v %v, %d requests", r, err, len(c.Sent()))
	}
	r, err = ResolveRelease(ctx, cc, nova.ReleaseEvidence{}, false)
	if err != nil || r.Release != nova.Zed || len(c.SentTo("GET", "/compute/v2.1/")) != 1 {
		t.Errorf("detected: %+v %v %v", r, err, c.Sent())
	}
	if _, err = ResolveRelease(ctx, cc, nova.ReleaseEvidence{Flag: nova.Zed}, true); len(c.SentTo("GET", "/compute/v2.1/")) != 2 {
		t.Errorf("pinned and detect: %v %v", err, c.Sent())
	}
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(503, `{}`))
	if _, err := ResolveRelease(ctx, cc, nova.ReleaseEvidence{}, false); err == nil || !strings.Contains(err.Error(), "version document") {
		t.Errorf("503: %v", err)
	}
}

// A version document that names no usable maximum is an error that says
// so, never a guessed release.
func TestDetectCloudReleaseBadDocument(t *testing.T) {
	for body, want := range map[string]string{
		`{"versions":[]}`:                  "names no maximum microversion",
		`{"version":{"version":"latest"}}`: "version document at",
	} {
		c := fakecloud.New(t)
		c.Handle("GET /compute/v2.1/", fakecloud.JSON(200, body))
		if _, err := DetectCloudRelease(context.Background(), c.ServiceClient("compute/v2.1")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// Two flavors of one name are ambiguous (both IDs named); a 5xx on the
// GET by ID is that error, not "not found"; a private flavor that the
// list does not show is still found by its ID.
func TestFlavorLookupEdges(t *testing.T) {
	ctx := context.Background()
	two := `{"flavors":[{"id":"a","name":"dup","vcpus":1,"ram":64,"disk":1},{"id":"b","name":"dup","vcpus":1,"ram":64,"disk":1}]}`
	c := fakecloud.New(t).Standard()
	c.Handle(fakecloud.Flavors, fakecloud.JSON(200, two))
	cc := c.ServiceClient("compute/v2.1")
	var amb *nova.AmbiguousError
	if _, err := FindFlavor(ctx, cc, "dup"); !errors.As(err, &amb) || len(amb.IDs) != 2 {
		t.Errorf("find: %v", err)
	}
	c.Handle(fakecloud.Flavor, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/private") {
			fakecloud.JSON(200, `{"flavor":{"id":"private","name":"p","vcpus":1,"ram":64,"disk":1}}`)(w, r)
			return
		}
		fakecloud.JSON(404, `{"itemNotFound":{}}`)(w, r)
	})
	got, err := ResolveFlavors(ctx, cc, []string{"dup", "private"})
	if !errors.As(err, &amb) || len(got) != 1 || got[0].ID != "private" {
		t.Errorf("resolve: %+v %v", got, err)
	}
	c.Handle(fakecloud.Flavor, fakecloud.JSON(500, `{}`))
	var nf *nova.NotFoundError
	if _, err := FindFlavor(ctx, cc, "x"); err == nil || errors.As(err, &nf) || errors.As(err, &amb) {
		t.Errorf("500: %v", err)
	}
}
