package flavor

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ListSchema names the JSON of `flavor list`.
const ListSchema = "vtpmctl.flavor-list/1"

// ListRequest selects flavors: VTPM keeps those with (or without) a
// hw:tpm_* extra spec.
type ListRequest struct {
	VTPM nova.VTPMFilter
}

// List lists every flavor the caller can see, extra specs
// included (one paginated list, no per-flavor request), and keeps those
// VTPM keeps. No release is settled: a row shows what the flavor asks,
// not what Nova decides with an image.
func List(ctx context.Context, sess *cloud.Session, req ListRequest) (Listed, error) {
	c, err := sess.Compute()
	if err != nil {
		return Listed{}, err
	}
	fls, err := compute.ListFlavors(ctx, c)
	if err != nil {
		return Listed{}, err
	}
	return listed(fls, req.VTPM), nil
}

// listed is the rows of the flavors f keeps, never nil: an empty list is
// [] in JSON.
func listed(fls []nova.CloudFlavor, f nova.VTPMFilter) Listed {
	out := Listed{Schema: ListSchema, Flavors: []Row{}}
	for _, fl := range fls {
		if !f.Keep(len(nova.VTPMKeys(fl.ExtraSpecs, nova.IsVTPMFlavorKey)) > 0) {
			continue
		}
		out.Flavors = append(out.Flavors, Row{ID: fl.ID, Name: fl.Name, VCPUs: fl.VCPUs, RAM: fl.RAM, Disk: fl.Disk, IsPublic: fl.IsPublic,
			TPMVersion: fl.ExtraSpecs[nova.FlavorTPMVersion], TPMModel: fl.ExtraSpecs[nova.FlavorTPMModel],
			SecretSecurity: fl.ExtraSpecs[nova.FlavorTPMSecretSecurity]})
	}
	return out
}

// Row is one row of `flavor list`.
type Row struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	VCPUs          int    `json:"vcpus"`
	RAM            int    `json:"ram"`
	Disk           int    `json:"disk"`
	IsPublic       bool   `json:"is_public"`
	TPMVersion     string `json:"tpm_version"`
	TPMModel       string `json:"tpm_model"`
	SecretSecurity string `json:"secret_security"`
}

// Listed is `flavor list`: its JSON is {"schema", "flavors": rows}, and
// its table's columns are the rows' JSON keys in order (a test keeps them
// one schema).
type Listed struct {
	Schema  string `json:"schema"`
	Flavors []Row  `json:"flavors"`
}

// Table implements output.Tabular.
func (l Listed) Table() output.Table {
	t := output.Table{Key: "flavors", Columns: []string{"id", "name", "vcpus", "ram", "disk", "is_public", "tpm_version", "tpm_model", "secret_security"}}
	for _, f := range l.Flavors {
		t.Rows = append(t.Rows, output.Record{{Name: "id", Value: f.ID}, {Name: "name", Value: f.Name},
			{Name: "vcpus", Value: f.VCPUs}, {Name: "ram", Value: f.RAM}, {Name: "disk", Value: f.Disk},
			{Name: "is_public", Value: f.IsPublic}, {Name: "tpm_version", Value: f.TPMVersion},
			{Name: "tpm_model", Value: f.TPMModel}, {Name: "secret_security", Value: f.SecretSecurity}})
	}
	return t
}
