package image

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// ShowSchema names the JSON of `image show`.
const ShowSchema = "vtpmctl.image-show/1"

// ShowRequest names one image and the caller's release evidence.
type ShowRequest struct {
	Ref     string // name or ID
	Release nova.ReleaseEvidence
}

// noTPMFlavor is the flavor an image is decided with: what the image
// alone gives a server.
var noTPMFlavor = nova.Flavor{Name: "(flavor without hw:tpm_*)"}

// Show reads one image (by ID or unique name), then settles the release
// and decides: an unknown image is said before the compute API is asked.
func Show(ctx context.Context, sess *cloud.Session, req ShowRequest) (Shown, error) {
	ic, err := sess.Image()
	if err != nil {
		return Shown{}, err
	}
	cc, err := sess.Compute()
	if err != nil {
		return Shown{}, err
	}
	img, err := glance.FindImage(ctx, ic, req.Ref)
	if err != nil {
		return Shown{}, err
	}
	rel, err := compute.ResolveRelease(ctx, cc, req.Release, false)
	if err != nil {
		return Shown{}, err
	}
	return shown(img, rel), nil
}

// Shown is `image show`: one image's vTPM and Windows-profile properties
// and what Nova gives a server built from it with a flavor without
// hw:tpm_*. Its JSON is the Record's (the same keys in the same order, a
// test keeps them one schema), under its schema.
type Shown struct {
	Schema         string            `json:"schema"`
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	Owner          string            `json:"owner"`
	Visibility     string            `json:"visibility"`
	Status         string            `json:"status"`
	TPMVersion     string            `json:"hw_tpm_version"`
	TPMModel       string            `json:"hw_tpm_model"`
	VTPM           nova.Outcome      `json:"vtpm"`
	WindowsProfile string            `json:"windows_profile"`
	Properties     map[string]string `json:"properties"`
	NovaRelease    *nova.ReleaseInfo `json:"nova_release"`
	// Release is how the release was settled (the caller warns when the
	// evidence leaves it open).
	Release nova.ResolvedRelease `json:"-"`
}

// shown decides img as Nova would on rel.
func shown(img nova.CloudImage, rel nova.ResolvedRelease) Shown {
	s := nova.SummarizeImage(img.Properties)
	d := nova.Decide(noTPMFlavor, img.Image, rel.Release)
	return Shown{Schema: ShowSchema, ID: img.ID, Name: img.Name, Owner: img.Owner, Visibility: img.Visibility, Status: img.Status,
		TPMVersion: s.TPMVersion, TPMModel: s.TPMModel, VTPM: nova.OutcomeOf(d), WindowsProfile: s.WindowsProfile,
		Properties: img.Properties, NovaRelease: rel.Release.Info(), Release: rel}
}

// Record is the image as one object: a Field/Value table, and -c selects
// its fields in every format.
func (s Shown) Record() output.Record {
	return output.Record{{Name: output.SchemaField, Value: ShowSchema},
		{Name: "id", Value: s.ID}, {Name: "name", Value: s.Name}, {Name: "owner", Value: s.Owner},
		{Name: "visibility", Value: s.Visibility}, {Name: "status", Value: s.Status},
		{Name: "hw_tpm_version", Value: s.TPMVersion}, {Name: "hw_tpm_model", Value: s.TPMModel},
		{Name: "vtpm", Value: s.VTPM}, {Name: "windows_profile", Value: s.WindowsProfile},
		{Name: "properties", Value: s.Properties}, {Name: "nova_release", Value: s.NovaRelease},
	}
}
