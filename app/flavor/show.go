package flavor

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ShowSchema names the JSON of `flavor show`.
const ShowSchema = "vtpmctl.flavor-show/1"

// ShowRequest names one flavor and the caller's release evidence.
type ShowRequest struct {
	Ref     string // name or ID
	Release nova.ReleaseEvidence
}

// Shown is one flavor, its vTPM specs and what Nova gives a server
// built from it with an image that carries no hw_tpm_*: `flavor show`.
// Its JSON is `flavor show -f json` (Record keeps the same fields in the
// same order for the Field/Value table).
type Shown struct {
	Schema         string            `json:"schema"`
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	VCPUs          int               `json:"vcpus"`
	RAM            int               `json:"ram"`
	Disk           int               `json:"disk"`
	IsPublic       bool              `json:"is_public"`
	TPMVersion     string            `json:"hw:tpm_version"`
	TPMModel       string            `json:"hw:tpm_model"`
	SecretSecurity string            `json:"hw:tpm_secret_security"`
	VTPM           nova.Outcome      `json:"vtpm"`
	RequiredTraits []string          `json:"required_traits"`
	NovaRelease    *nova.ReleaseInfo `json:"nova_release"`
	ExtraSpecs     map[string]string `json:"extra_specs"`
	// Release is how the release was settled (the caller warns when the
	// evidence leaves it open).
	Release nova.ResolvedRelease `json:"-"`
}

// Show settles the release (it decides what Nova makes of the specs),
// then reads one flavor by ID or unique name and decides.
func Show(ctx context.Context, sess *cloud.Session, req ShowRequest) (Shown, error) {
	var out Shown
	cc, err := sess.Compute()
	if err != nil {
		return out, err
	}
	if out.Release, err = compute.ResolveRelease(ctx, cc, req.Release, false); err != nil {
		return Shown{}, err
	}
	f, err := compute.FindFlavor(ctx, cc, req.Ref)
	if err != nil {
		return out, err
	}
	return shown(f, out.Release), nil
}

// shown decides f as Nova would with an image without hw_tpm_*.
func shown(f nova.CloudFlavor, res nova.ResolvedRelease) Shown {
	d := nova.Decide(f.Flavor, nova.Image{Name: "(image without hw_tpm_*)"}, res.Release)
	return Shown{Schema: ShowSchema, ID: f.ID, Name: f.Name, VCPUs: f.VCPUs, RAM: f.RAM, Disk: f.Disk, IsPublic: f.IsPublic,
		TPMVersion: f.ExtraSpecs[nova.FlavorTPMVersion], TPMModel: f.ExtraSpecs[nova.FlavorTPMModel],
		SecretSecurity: f.ExtraSpecs[nova.FlavorTPMSecretSecurity], VTPM: nova.OutcomeOf(d), RequiredTraits: d.RequiredTraits,
		NovaRelease: res.Release.Info(), ExtraSpecs: f.ExtraSpecs, Release: res}
}

// Record is the flavor as one object: a Field/Value table, and -c
// selects its fields in every format.
func (s Shown) Record() output.Record {
	return output.Record{{Name: output.SchemaField, Value: ShowSchema},
		{Name: "id", Value: s.ID}, {Name: "name", Value: s.Name}, {Name: "vcpus", Value: s.VCPUs},
		{Name: "ram", Value: s.RAM}, {Name: "disk", Value: s.Disk}, {Name: "is_public", Value: s.IsPublic},
		{Name: "hw:tpm_version", Value: s.TPMVersion}, {Name: "hw:tpm_model", Value: s.TPMModel},
		{Name: "hw:tpm_secret_security", Value: s.SecretSecurity},
		{Name: "vtpm", Value: s.VTPM}, {Name: "required_traits", Value: s.RequiredTraits},
		{Name: "nova_release", Value: s.NovaRelease}, {Name: "extra_specs", Value: s.ExtraSpecs},
	}
}
