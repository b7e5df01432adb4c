package predict

import (
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

// noTPMFlavor is the flavor image and volume results are decided with:
// what the object alone gives a server.
var noTPMFlavor = nova.Flavor{Name: "(flavor without hw:tpm_*)"}

// ShownImage is `image show`: one image's vTPM and Windows-profile
// properties and what Nova gives a server built from it with a flavor
// without hw:tpm_*. Its JSON is the Record's (the same keys in the same
// order, a test keeps them one schema), under its schema.
type ShownImage struct {
	Schema         string            `json:"schema"`
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	Owner          string            `json:"owner"`
	Visibility     string            `json:"visibility"`
	Status         string            `json:"status"`
	TPMVersion     string            `json:"hw_tpm_version"`
	TPMModel       string            `json:"hw_tpm_model"`
	VTPM           Outcome           `json:"vtpm"`
	WindowsProfile string            `json:"windows_profile"`
	Properties     map[string]string `json:"properties"`
	NovaRelease    *nova.ReleaseInfo `json:"nova_release"`
	// Release is how the release was settled (the caller warns when the
	// evidence leaves it open).
	Release nova.ResolvedRelease `json:"-"`
}

// imageShown decides img as Nova would on rel.
func imageShown(img nova.CloudImage, rel nova.ResolvedRelease) ShownImage {
	s := nova.SummarizeImage(img.Properties)
	d := nova.Decide(noTPMFlavor, img.Image, rel.Release)
	return ShownImage{Schema: ImageShowSchema, ID: img.ID, Name: img.Name, Owner: img.Owner, Visibility: img.Visibility, Status: img.Status,
		TPMVersion: s.TPMVersion, TPMModel: s.TPMModel, VTPM: outcomeOf(d), WindowsProfile: s.WindowsProfile,
		Properties: img.Properties, NovaRelease: rel.Release.Info(), Release: rel}
}

// Record is the image as one object: a Field/Value table, and -c selects
// its fields in every format.
func (s ShownImage) Record() output.Record {
	return output.Record{schemaField(ImageShowSchema),
		{Name: "id", Value: s.ID}, {Name: "name", Value: s.Name}, {Name: "owner", Value: s.Owner},
		{Name: "visibility", Value: s.Visibility}, {Name: "status", Value: s.Status},
		{Name: "hw_tpm_version", Value: s.TPMVersion}, {Name: "hw_tpm_model", Value: s.TPMModel},
		{Name: "vtpm", Value: s.VTPM}, {Name: "windows_profile", Value: s.WindowsProfile},
		{Name: "properties", Value: s.Properties}, {Name: "nova_release", Value: s.NovaRelease},
	}
}

// ShownVolume is `volume show`: one volume's vTPM and Windows-profile
// image metadata and what Nova gives a server booted from it with a
// flavor without hw:tpm_*. Its JSON is the Record's.
type ShownVolume struct {
	Schema         string               `json:"schema"`
	ID             string               `json:"id"`
	Name           string               `json:"name"`
	Project        string               `json:"project"`
	Status         string               `json:"status"`
	Bootable       bool                 `json:"bootable"`
	ImageID        string               `json:"image_id"`
	TPMVersion     string               `json:"hw_tpm_version"`
	TPMModel       string               `json:"hw_tpm_model"`
	VTPM           Outcome              `json:"vtpm"`
	WindowsProfile string               `json:"windows_profile"`
	Attachments    []string             `json:"attachments"` // "SERVER DEVICE", never null
	ImageMetadata  map[string]string    `json:"image_metadata"`
	NovaRelease    *nova.ReleaseInfo    `json:"nova_release"`
	Release        nova.ResolvedRelease `json:"-"`
}

// volumeShown decides v as Nova would for a server booted from it on rel:
// its boot properties are the image metadata without the image's own
// attributes (checksum, size, …).
func volumeShown(v cinder.Volume, rel nova.ResolvedRelease) ShownVolume {
	d := nova.DecideVolume(noTPMFlavor, v.Boot(), rel.Release)
	s := nova.SummarizeImage(nova.VolumeBootProperties(v.ImageMetadata))
	attached := []string{}
	for _, a := range v.Attachments {
		attached = append(attached, a.ServerID+" "+a.Device)
	}
	return ShownVolume{Schema: VolumeShowSchema, ID: v.ID, Name: v.Name, Project: v.ProjectID, Status: v.Status, Bootable: bool(v.Bootable),
		ImageID: v.ImageMetadata["image_id"], TPMVersion: s.TPMVersion, TPMModel: s.TPMModel, VTPM: outcomeOf(d),
		WindowsProfile: s.WindowsProfile, Attachments: attached, ImageMetadata: v.ImageMetadata,
		NovaRelease: rel.Release.Info(), Release: rel}
}

// Record is the volume as one object (see ShownImage.Record).
func (s ShownVolume) Record() output.Record {
	return output.Record{schemaField(VolumeShowSchema),
		{Name: "id", Value: s.ID}, {Name: "name", Value: s.Name}, {Name: "project", Value: s.Project},
		{Name: "status", Value: s.Status}, {Name: "bootable", Value: s.Bootable},
		{Name: "image_id", Value: s.ImageID},
		{Name: "hw_tpm_version", Value: s.TPMVersion}, {Name: "hw_tpm_model", Value: s.TPMModel},
		{Name: "vtpm", Value: s.VTPM}, {Name: "windows_profile", Value: s.WindowsProfile},
		{Name: "attachments", Value: s.Attachments},
		{Name: "image_metadata", Value: s.ImageMetadata}, {Name: "nova_release", Value: s.NovaRelease},
	}
}
