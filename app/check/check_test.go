package check

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// An offline request needs no session and decides on the given
// properties and specs with the pinned release.
func TestCheckOffline(t *testing.T) {
	for _, c := range []struct {
		name          string
		props, specs  map[string]string
		vtpm, refused bool
	}{
		{name: "image asks, flavor silent", props: map[string]string{"hw_tpm_version": "2.0"}, vtpm: true},
		{name: "conflicting model", props: map[string]string{"hw_tpm_version": "2.0", "hw_tpm_model": "tpm-crb"},
			specs: map[string]string{"hw:tpm_model": "tpm-tis"}, refused: true},
		{name: "nothing asks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := Request{ImageProperties: c.props, FlavorSpecs: c.specs, ImageName: "i", FlavorName: "f", Release: nova.ReleaseEvidence{Flag: nova.Zed}}
			if req.Online() {
				t.Fatal("offline request reads as online")
			}
			res, err := Check(context.Background(), nil, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision.VTPM != c.vtpm || (res.Decision.Error != nil) != c.refused || res.Decision.Release != nova.Zed {
				t.Errorf("vtpm %v refused %v release %v", res.Decision.VTPM, res.Decision.Error != nil, res.Decision.Release)
			}
		})
	}
}

// Online: the flavor is read from the cloud (strict), the release
// detected from the compute API, the spec given on top overrides it.
func TestCheckOnline(t *testing.T) {
	sess := scaleSession(t, scale.Config{Guests: 1, Projects: 1, Hypervisors: 1})
	res, err := Check(context.Background(), sess, Request{Flavor: "vtpm.crb", FlavorSpecs: map[string]string{"hw:tpm_model": "tpm-tis"}})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Decision
	if !d.VTPM || d.Model != "tpm-tis" || d.Release != nova.Zed || res.Release.Note(res.Differ) == "" {
		t.Errorf("vtpm %v model %q release %s note %q", d.VTPM, d.Model, d.Release, res.Release.Note(res.Differ))
	}
}

// scaleSession: the strict synthetic cloud (a request it does not serve
// fails the test).
func scaleSession(t *testing.T, cfg scale.Config) *cloud.Session {
	_, sess := scale.Session(t, cfg)
	return sess
}
