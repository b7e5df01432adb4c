package predict

import "github.com/vtpmctl/vtpmctl/internal/output"

// ListedImage is one row of `image list`.
type ListedImage struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	TPMVersion     string `json:"hw_tpm_version"`
	TPMModel       string `json:"hw_tpm_model"`
	WindowsProfile string `json:"windows_profile"`
	Visibility     string `json:"visibility"`
	Owner          string `json:"owner"`
}

// ImageList is `image list`: its JSON is {"schema", "images": rows}, and
// its table's columns are the rows' JSON keys in order (a test keeps them
// one schema).
type ImageList struct {
	Schema string        `json:"schema"`
	Images []ListedImage `json:"images"`
}

// Table implements output.Tabular.
func (l ImageList) Table() output.Table {
	t := output.Table{Key: "images", Columns: []string{"id", "name", "hw_tpm_version", "hw_tpm_model", "windows_profile", "visibility", "owner"}}
	for _, i := range l.Images {
		t.Rows = append(t.Rows, output.Record{{Name: "id", Value: i.ID}, {Name: "name", Value: i.Name},
			{Name: "hw_tpm_version", Value: i.TPMVersion}, {Name: "hw_tpm_model", Value: i.TPMModel},
			{Name: "windows_profile", Value: i.WindowsProfile}, {Name: "visibility", Value: i.Visibility},
			{Name: "owner", Value: i.Owner}})
	}
	return t
}

// ListedVolume is one row of `volume list`.
type ListedVolume struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	Status         string  `json:"status"`
	TPMVersion     string  `json:"hw_tpm_version"`
	TPMModel       string  `json:"hw_tpm_model"`
	VTPM           Outcome `json:"vtpm"`
	WindowsProfile string  `json:"windows_profile"`
	ImageID        string  `json:"image_id"`
	Project        string  `json:"project"`
}

// VolumeList is `volume list`: its JSON is {"schema", "volumes": rows}
// (see ImageList).
type VolumeList struct {
	Schema  string         `json:"schema"`
	Volumes []ListedVolume `json:"volumes"`
}

// Table implements output.Tabular.
func (l VolumeList) Table() output.Table {
	t := output.Table{Key: "volumes", Columns: []string{"id", "name", "status", "hw_tpm_version", "hw_tpm_model", "vtpm", "windows_profile", "image_id", "project"}}
	for _, v := range l.Volumes {
		t.Rows = append(t.Rows, output.Record{{Name: "id", Value: v.ID}, {Name: "name", Value: v.Name}, {Name: "status", Value: v.Status},
			{Name: "hw_tpm_version", Value: v.TPMVersion}, {Name: "hw_tpm_model", Value: v.TPMModel},
			{Name: "vtpm", Value: v.VTPM}, {Name: "windows_profile", Value: v.WindowsProfile},
			{Name: "image_id", Value: v.ImageID}, {Name: "project", Value: v.Project}})
	}
	return t
}
