package compute

import (
	"context"
	"errors"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Against the local cloud's captured answers (fakecloud fixtures), with
// faults added where a real Nova will not give them on demand.

func TestDetectCloudRelease(t *testing.T) {
	c := fakecloud.New(t).Standard()
	cc := c.ServiceClient("compute/v2.1")
	ctx := context.Background()
	det, err := DetectCloudRelease(ctx, cc)
	if err != nil || det.Newest() != nova.Zed {
		t.Fatalf("release: %+v %v", det, err)
	}
	if u := versionDocURL("http://h/v2.1/0123abcd/"); u != "http://h/v2.1/" {
		t.Errorf("project in endpoint: %s", u)
	}
}

func TestFindFlavor(t *testing.T) {
	c := fakecloud.New(t).Standard()
	cc := c.ServiceClient("compute/v2.1")
	ctx := context.Background()
	f, err := FindFlavor(ctx, cc, fakecloud.FixtureFlavor)
	if err != nil || f.ExtraSpecs[nova.FlavorTPMModel] != "tpm-crb" {
		t.Fatalf("by name: %+v %v", f, err)
	}
	if byID, err := FindFlavor(ctx, cc, f.ID); err != nil || byID.Name != f.Name {
		t.Errorf("by ID: %+v %v", byID, err)
	}
	var nf *nova.NotFoundError
	if _, err := FindFlavor(ctx, cc, "nope"); !errors.As(err, &nf) {
		t.Errorf("unknown: %v", err)
	}
	got, err := ResolveFlavors(ctx, cc, []string{f.ID, fakecloud.FixtureFlavor, "nope", "also-nope"})
	if !errors.As(err, &nf) || got != nil && len(got) > 1 {
		t.Errorf("resolve: %v %v", got, err)
	}
}

// The count is of the flavor's servers only: the flavor filter must
// reach Nova (the fake answers only a list that carries it, and the
// request is asserted), or every server of the cloud would be counted.
func TestServersUsingFlavor(t *testing.T) {
	c := fakecloud.New(t).Standard()
	c.Handle("GET /compute/v2.1/servers?all_tenants=true&flavor=f1&limit=1000", fakecloud.JSON(200, `{"servers":[{"id":"s1"},{"id":"s2"}]}`))
	cc := c.ServiceClient("compute/v2.1")
	n, err := ServersUsingFlavor(context.Background(), cc, "f1")
	if err != nil || n != 2 {
		t.Errorf("servers: %d %v", n, err)
	}
	sent := c.SentTo("GET", "/compute/v2.1/servers")
	if len(sent) != 1 || sent[0].Query.Get("flavor") != "f1" || sent[0].Query.Get("all_tenants") != "true" {
		t.Errorf("one list filtered by flavor f1 over all projects: %v", sent)
	}
}
