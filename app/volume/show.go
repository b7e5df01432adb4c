package volume

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ShowSchema names the JSON of `volume show`.
const ShowSchema = "vtpmctl.volume-show/1"

// ShowRequest names one volume and the caller's release evidence.
type ShowRequest struct {
	Ref string // name or ID
	// AllProjects finds the volume by name in every project (admin).
	AllProjects bool
	Release     nova.ReleaseEvidence
}

// noTPMFlavor is the flavor a volume is decided with: what the volume
// alone gives a server booted from it.
var noTPMFlavor = nova.Flavor{Name: "(flavor without hw:tpm_*)"}

// Show reads one volume (by ID or unique name), then settles the release
// and decides as for a server booted from it.
func Show(ctx context.Context, sess *cloud.Session, req ShowRequest) (Shown, error) {
	vc, cc, err := clients(sess)
	if err != nil {
		return Shown{}, err
	}
	v, err := cinder.FindVolume(ctx, vc, req.Ref, req.AllProjects)
	if err != nil {
		return Shown{}, err
	}
	rel, err := compute.ResolveRelease(ctx, cc, req.Release, false)
	if err != nil {
		return Shown{}, err
	}
	return shown(v, rel), nil
}

// clients are the block-storage and compute clients show and list need.
func clients(sess *cloud.Session) (vc, cc *gophercloud.ServiceClient, err error) {
	if cc, err = sess.Compute(); err != nil {
		return nil, nil, err
	}
	if vc, err = sess.BlockStorage(); err != nil {
		return nil, nil, err
	}
	return vc, cc, nil
}

// Shown is `volume show`: one volume's vTPM and Windows-profile image
// metadata and what Nova gives a server booted from it with a flavor
// without hw:tpm_*. Its JSON is the Record's (the same keys in the same
// order, a test keeps them one schema), under its schema.
type Shown struct {
	Schema         string               `json:"schema"`
	ID             string               `json:"id"`
	Name           string               `json:"name"`
	Project        string               `json:"project"`
	Status         string               `json:"status"`
	Bootable       bool                 `json:"bootable"`
	ImageID        string               `json:"image_id"`
	TPMVersion     string               `json:"hw_tpm_version"`
	TPMModel       string               `json:"hw_tpm_model"`
	VTPM           nova.Outcome         `json:"vtpm"`
	WindowsProfile string               `json:"windows_profile"`
	Attachments    []string             `json:"attachments"` // "SERVER DEVICE", never null
	ImageMetadata  map[string]string    `json:"image_metadata"`
	NovaRelease    *nova.ReleaseInfo    `json:"nova_release"`
	Release        nova.ResolvedRelease `json:"-"`
}

// shown decides v as Nova would for a server booted from it on rel: its
// boot properties are the image metadata without the image's own
// attributes (checksum, size, …).
func shown(v cinder.Volume, rel nova.ResolvedRelease) Shown {
	d := nova.DecideVolume(noTPMFlavor, v.Boot(), rel.Release)
	s := nova.SummarizeImage(nova.VolumeBootProperties(v.ImageMetadata))
	attached := []string{}
	for _, a := range v.Attachments {
		attached = append(attached, a.ServerID+" "+a.Device)
	}
	return Shown{Schema: ShowSchema, ID: v.ID, Name: v.Name, Project: v.ProjectID, Status: v.Status, Bootable: bool(v.Bootable),
		ImageID: v.ImageMetadata["image_id"], TPMVersion: s.TPMVersion, TPMModel: s.TPMModel, VTPM: nova.OutcomeOf(d),
		WindowsProfile: s.WindowsProfile, Attachments: attached, ImageMetadata: v.ImageMetadata,
		NovaRelease: rel.Release.Info(), Release: rel}
}

// Record is the volume as one object: a Field/Value table, and -c
// selects its fields in every format.
func (s Shown) Record() output.Record {
	return output.Record{{Name: output.SchemaField, Value: ShowSchema},
		{Name: "id", Value: s.ID}, {Name: "name", Value: s.Name}, {Name: "project", Value: s.Project},
		{Name: "status", Value: s.Status}, {Name: "bootable", Value: s.Bootable},
		{Name: "image_id", Value: s.ImageID},
		{Name: "hw_tpm_version", Value: s.TPMVersion}, {Name: "hw_tpm_model", Value: s.TPMModel},
		{Name: "vtpm", Value: s.VTPM}, {Name: "windows_profile", Value: s.WindowsProfile},
		{Name: "attachments", Value: s.Attachments},
		{Name: "image_metadata", Value: s.ImageMetadata}, {Name: "nova_release", Value: s.NovaRelease},
	}
}
