package predict

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ShownFlavor is one flavor, its vTPM specs and what Nova gives a server
// built from it with an image that carries no hw_tpm_*: `flavor show`.
// Its JSON is `flavor show -f json` (Record keeps the same fields in the
// same order for the Field/Value table).
type ShownFlavor struct {
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
	VTPM           Outcome           `json:"vtpm"`
	RequiredTraits []string          `json:"required_traits"`
	NovaRelease    *nova.ReleaseInfo `json:"nova_release"`
	ExtraSpecs     map[string]string `json:"extra_specs"`
	// Release is how the release was settled (the caller warns when the
	// evidence leaves it open).
	Release nova.ResolvedRelease `json:"-"`
}

// ShowFlavor settles the release (it decides what Nova makes of the
// specs), then reads one flavor by ID or unique name and decides.
func ShowFlavor(ctx context.Context, sess *cloud.Session, req ShowRequest) (ShownFlavor, error) {
	var out ShownFlavor
	cc, err := sess.Compute()
	if err != nil {
		return out, err
	}
	if out.Release, err = compute.ResolveRelease(ctx, cc, req.Release, false); err != nil {
		return ShownFlavor{}, err
	}
	f, err := compute.FindFlavor(ctx, compute.ComputeClient(cc), req.Ref)
	if err != nil {
		return out, err
	}
	return flavorShown(f, out.Release), nil
}

// flavorShown decides f as Nova would with an image without hw_tpm_*.
func flavorShown(f nova.CloudFlavor, res nova.ResolvedRelease) ShownFlavor {
	d := nova.Decide(f.Flavor, nova.Image{Name: "(image without hw_tpm_*)"}, res.Release)
	return ShownFlavor{Schema: FlavorShowSchema, ID: f.ID, Name: f.Name, VCPUs: f.VCPUs, RAM: f.RAM, Disk: f.Disk, IsPublic: f.IsPublic,
		TPMVersion: f.ExtraSpecs[nova.FlavorTPMVersion], TPMModel: f.ExtraSpecs[nova.FlavorTPMModel],
		SecretSecurity: f.ExtraSpecs[nova.FlavorTPMSecretSecurity], VTPM: outcomeOf(d), RequiredTraits: d.RequiredTraits,
		NovaRelease: res.Release.Info(), ExtraSpecs: f.ExtraSpecs, Release: res}
}

// Record is the flavor as one object: a Field/Value table, and -c
// selects its fields in every format.
func (s ShownFlavor) Record() output.Record {
	return output.Record{schemaField(FlavorShowSchema),
		{Name: "id", Value: s.ID}, {Name: "name", Value: s.Name}, {Name: "vcpus", Value: s.VCPUs},
		{Name: "ram", Value: s.RAM}, {Name: "disk", Value: s.Disk}, {Name: "is_public", Value: s.IsPublic},
		{Name: "hw:tpm_version", Value: s.TPMVersion}, {Name: "hw:tpm_model", Value: s.TPMModel},
		{Name: "hw:tpm_secret_security", Value: s.SecretSecurity},
		{Name: "vtpm", Value: s.VTPM}, {Name: "required_traits", Value: s.RequiredTraits},
		{Name: "nova_release", Value: s.NovaRelease}, {Name: "extra_specs", Value: s.ExtraSpecs},
	}
}
