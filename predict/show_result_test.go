package predict

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

var zed = nova.ResolvedRelease{Release: nova.Zed}

// What an image alone gives a server on a release: the cell the show and
// its JSON carry.
func TestImageShownDecides(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props map[string]string
		rel   nova.Release
		vtpm  string
	}{
		{"no keys", nil, nova.Zed, "none"},
		{"2.0 default model", map[string]string{nova.ImageTPMVersion: "2.0"}, nova.Zed, "2.0 tpm-tis"},
		{"2.0 crb", map[string]string{nova.ImageTPMVersion: "2.0", nova.ImageTPMModel: "tpm-crb"}, nova.Zed, "2.0 tpm-crb"},
		{"model alone asks nothing", map[string]string{nova.ImageTPMModel: "tpm-crb"}, nova.Zed, "none"},
		{"crb with 1.2", map[string]string{nova.ImageTPMVersion: "1.2", nova.ImageTPMModel: "tpm-crb"}, nova.Zed,
			"refused: TPM model CRB is only valid with TPM version 2.0."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := nova.CloudImage{ID: "i1", Owner: "o", Visibility: "public", Status: "active", Image: nova.Image{Name: "n", Properties: tc.props}}
			s := imageShown(img, nova.ResolvedRelease{Release: tc.rel})
			if s.VTPM.String() != tc.vtpm || s.NovaRelease.String() != tc.rel.Long() || s.ID != "i1" || s.Owner != "o" || s.Status != "active" {
				t.Errorf("%+v, want vtpm %q", s, tc.vtpm)
			}
		})
	}
}

// A server booted from a volume: Nova's volume rules (not bootable is
// refused first; the image attributes Cinder copied are not properties),
// and every attachment as "SERVER DEVICE".
func TestVolumeShownDecides(t *testing.T) {
	win := map[string]string{nova.ImageTPMVersion: "2.0", "os_distro": "windows", "image_id": "img1", "checksum": "c"}
	for _, tc := range []struct {
		name           string
		v              cinder.Volume
		vtpm, profile  string
		attached       []string
		version, model string
	}{
		{"not bootable", cinder.Volume{ID: "v1"}, "refused: Block Device v1 is not bootable.", "none", []string{}, "", ""},
		{"windows, partial", cinder.Volume{ID: "v2", Bootable: true, ImageMetadata: win,
			Attachments: []cinder.Attachment{{ServerID: "s1", Device: "/dev/vda"}, {ServerID: "s2", Device: "/dev/vdb"}}},
			"2.0 tpm-tis", "partial: missing ", []string{"s1 /dev/vda", "s2 /dev/vdb"}, "2.0", ""},
		{"no metadata", cinder.Volume{ID: "v3", Bootable: true}, "none", "none", []string{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := volumeShown(tc.v, zed)
			if s.VTPM.String() != tc.vtpm || len(s.WindowsProfile) < len(tc.profile) || s.WindowsProfile[:len(tc.profile)] != tc.profile ||
				s.TPMVersion != tc.version || s.TPMModel != tc.model || s.Bootable != bool(tc.v.Bootable) {
				t.Errorf("%+v", s)
			}
			if s.Attachments == nil || len(s.Attachments) != len(tc.attached) {
				t.Fatalf("attachments %#v, want %q", s.Attachments, tc.attached)
			}
			for i := range tc.attached {
				if s.Attachments[i] != tc.attached[i] {
					t.Errorf("attachments %q, want %q", s.Attachments, tc.attached)
				}
			}
			if s.ImageID != tc.v.ImageMetadata["image_id"] || s.Project != tc.v.ProjectID {
				t.Errorf("image %q project %q", s.ImageID, s.Project)
			}
		})
	}
}

// recordJSON is -f json of a Record: its fields in order.
func recordJSON(t *testing.T, r output.Record) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		v, err := json.Marshal(f.Value)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// Record and the JSON tags are one schema: the same fields, in the same
// order, with the same values (-f json of the Record is what scripts
// read; the struct's JSON must not drift from it).
func TestShownRecordIsItsJSON(t *testing.T) {
	img := imageShown(nova.CloudImage{ID: "i", Owner: "o", Visibility: "v", Status: "s",
		Image: nova.Image{Name: "n", Properties: map[string]string{nova.ImageTPMVersion: "2.0", "os_distro": "windows"}}}, zed)
	vol := volumeShown(cinder.Volume{ID: "v", Name: "n", Status: "s", ProjectID: "p", Bootable: true,
		ImageMetadata: map[string]string{nova.ImageTPMVersion: "2.0", "image_id": "i"}, Attachments: []cinder.Attachment{{ServerID: "s", Device: "d"}}}, zed)
	for _, s := range []interface{ Record() output.Record }{img, vol, imageShown(nova.CloudImage{}, nova.ResolvedRelease{}), volumeShown(cinder.Volume{}, zed)} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := recordJSON(t, s.Record()); got != string(want) {
			t.Errorf("record\n%s\nJSON\n%s", got, want)
		}
	}
}
