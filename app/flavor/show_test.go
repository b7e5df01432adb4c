package flavor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Show settles the release, reads the flavor and decides it: the
// fixture's fx-vtpm gives 2.0 tpm-crb on Zed and needs the TPM 2.0 trait.
func TestShowFlavor(t *testing.T) {
	c, sess := flavorCloud(t)
	shown, err := Show(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureFlavor})
	if err != nil {
		t.Fatal(err)
	}
	if shown.Name != fakecloud.FixtureFlavor || shown.VTPM.String() != "2.0 tpm-crb" || shown.TPMModel != "tpm-crb" ||
		strings.Join(shown.RequiredTraits, ",") != "COMPUTE_SECURITY_TPM_2_0" || shown.Release.Release != nova.Zed || shown.NovaRelease.String() != nova.Zed.Long() {
		t.Errorf("shown %+v", shown)
	}
	// by name: the ID lookup misses, then one list at the microversion
	// that carries extra specs (the strict routes assert it)
	if n := len(c.SentTo("GET", "/compute/v2.1/flavors/detail")); n != 1 {
		t.Errorf("%d flavor lists, want 1", n)
	}
}

// The caller warns about an open release even when the flavor is
// unknown, so the release stays in the result; a release the cloud does
// not tell is the error, asked before any flavor.
func TestShowFlavorErrors(t *testing.T) {
	c, sess := flavorCloud(t)
	shown, err := Show(context.Background(), sess, ShowRequest{Ref: "no-such-flavor"})
	var nf *nova.NotFoundError
	if !errors.As(err, &nf) || shown.Release.Release != nova.Zed {
		t.Errorf("unknown flavor: %v, release %s", err, shown.Release.Release)
	}
	c.Handle("GET /compute/v2.1/", fakecloud.JSON(500, `{"error":"down"}`))
	before := len(c.Sent())
	shown, err = Show(context.Background(), sess, ShowRequest{Ref: fakecloud.FixtureFlavor})
	if err == nil || shown.Release.Release != nova.ReleaseUnknown {
		t.Errorf("release unknown: %v, release %s", err, shown.Release.Release)
	}
	for _, r := range c.Sent()[before:] {
		if strings.HasPrefix(r.Path, "/compute/v2.1/flavors") {
			t.Errorf("asked %s %s without a release", r.Method, r.Path)
		}
	}
}

// What Nova gives a server of the flavor with an image without hw_tpm_*:
// nothing, a vTPM, or a refusal in Nova's words.
func TestFlavorShownDecides(t *testing.T) {
	for _, tc := range []struct {
		specs map[string]string
		rel   nova.Release
		vtpm  string
	}{
		{nil, nova.Zed, "none"},
		{map[string]string{nova.FlavorTPMVersion: "2.0"}, nova.Zed, "2.0 tpm-tis"},
		{map[string]string{nova.FlavorTPMVersion: "1.2", nova.FlavorTPMModel: "tpm-crb"}, nova.Zed, "refused: TPM model CRB is only valid with TPM version 2.0."},
		{map[string]string{nova.FlavorTPMVersion: "2.0", nova.FlavorTPMSecretSecurity: "host"}, nova.Gazpacho, "2.0 tpm-tis"},
	} {
		f := nova.CloudFlavor{ID: "f", Flavor: nova.Flavor{Name: "f", ExtraSpecs: tc.specs}}
		res := nova.ResolvedRelease{Release: tc.rel}
		got := shown(f, res)
		if got.VTPM.String() != tc.vtpm || got.SecretSecurity != tc.specs[nova.FlavorTPMSecretSecurity] || got.NovaRelease.String() != tc.rel.Long() {
			t.Errorf("%v on %s: %+v, want vtpm %q", tc.specs, tc.rel, got, tc.vtpm)
		}
	}
}

// Record and the JSON tags are one schema: the same fields, in the same
// order, with the same values (-f json of the Record is what scripts
// read; the struct's JSON must not drift from it).
func TestShownFlavorRecordIsItsJSON(t *testing.T) {
	f := nova.CloudFlavor{ID: "f1", IsPublic: true, VCPUs: 2, RAM: 1024, Disk: 10,
		Flavor: nova.Flavor{Name: "w1", ExtraSpecs: map[string]string{nova.FlavorTPMVersion: "2.0", nova.FlavorTPMModel: "tpm-crb", "x": "y"}}}
	s := shown(f, nova.ResolvedRelease{Release: nova.Zed})
	var b bytes.Buffer
	b.WriteByte('{')
	for i, fl := range s.Record() {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(fl.Name)
		v, _ := json.Marshal(fl.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("record\n%s\nJSON\n%s", b.String(), want)
	}
}
