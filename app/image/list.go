package image

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// ListSchema names the JSON of `image list`.
const ListSchema = "vtpmctl.image-list/1"

// ListRequest selects images: Glance filters on Properties, VTPM on
// whether an image requests a vTPM (carries hw_tpm_version).
type ListRequest struct {
	Properties map[string]string
	VTPM       nova.VTPMFilter
}

// List lists the images of Glance's default list (all pages, filtered
// by Glance: public ones, the project's own and accepted shares; not
// other projects' community images, hidden ones or shares not accepted)
// and keeps those VTPM keeps. No release is settled: a row shows what the
// image requests, not what Nova decides.
func List(ctx context.Context, sess *cloud.Session, req ListRequest) (Listed, error) {
	ic, err := sess.Image()
	if err != nil {
		return Listed{}, err
	}
	imgs, err := glance.ListImages(ctx, ic, glance.ImageListOpts{Properties: req.Properties})
	if err != nil {
		return Listed{}, err
	}
	return listed(imgs, req.VTPM), nil
}

// listed is the rows of the images f keeps, never nil: an empty list is
// [] in JSON.
func listed(imgs []nova.CloudImage, f nova.VTPMFilter) Listed {
	out := Listed{Schema: ListSchema, Images: []Row{}}
	for _, img := range imgs {
		if !f.Keep(img.Properties[nova.ImageTPMVersion] != "") {
			continue
		}
		s := nova.SummarizeImage(img.Properties)
		out.Images = append(out.Images, Row{ID: img.ID, Name: img.Name, TPMVersion: s.TPMVersion, TPMModel: s.TPMModel,
			WindowsProfile: s.WindowsProfile, Visibility: img.Visibility, Owner: img.Owner})
	}
	return out
}

// Row is one row of `image list`.
type Row struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	TPMVersion     string `json:"hw_tpm_version"`
	TPMModel       string `json:"hw_tpm_model"`
	WindowsProfile string `json:"windows_profile"`
	Visibility     string `json:"visibility"`
	Owner          string `json:"owner"`
}

// Listed is `image list`: its JSON is {"schema", "images": rows}, and its
// table's columns are the rows' JSON keys in order (a test keeps them one
// schema).
type Listed struct {
	Schema string `json:"schema"`
	Images []Row  `json:"images"`
}

// Table implements output.Tabular.
func (l Listed) Table() output.Table {
	t := output.Table{Key: "images", Columns: []string{"id", "name", "hw_tpm_version", "hw_tpm_model", "windows_profile", "visibility", "owner"}}
	for _, i := range l.Images {
		t.Rows = append(t.Rows, output.Record{{Name: "id", Value: i.ID}, {Name: "name", Value: i.Name},
			{Name: "hw_tpm_version", Value: i.TPMVersion}, {Name: "hw_tpm_model", Value: i.TPMModel},
			{Name: "windows_profile", Value: i.WindowsProfile}, {Name: "visibility", Value: i.Visibility},
			{Name: "owner", Value: i.Owner}})
	}
	return t
}
