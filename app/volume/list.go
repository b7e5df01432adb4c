package volume

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ListSchema names the JSON of `volume list`.
const ListSchema = "vtpmctl.volume-list/1"

// ListRequest selects bootable volumes by image metadata and by the vTPM
// Nova gives a server booted from them.
type ListRequest struct {
	AllProjects bool
	Properties  map[string]string // KEY=VALUE the image metadata must carry
	VTPM        nova.VTPMFilter
	Release     nova.ReleaseEvidence
}

// ListResult is `volume list`: the kept volumes, decided, and how the
// release was settled.
type ListResult struct {
	Volumes Listed
	Release nova.ResolvedRelease
}

// List settles the release, then lists the bootable volumes (one Cinder
// list, all pages) whose image metadata matches, decides each as Nova
// would for a server booted from it, and keeps those VTPM keeps.
func List(ctx context.Context, sess *cloud.Session, req ListRequest) (ListResult, error) {
	var out ListResult
	vc, cc, err := clients(sess)
	if err != nil {
		return out, err
	}
	if out.Release, err = compute.ResolveRelease(ctx, cc, req.Release, false); err != nil {
		return out, err
	}
	vols, err := cinder.ListVolumes(ctx, vc, cinder.ListOpts{AllTenants: req.AllProjects, Bootable: true})
	if err != nil {
		return out, err
	}
	out.Volumes = listed(cinder.Select(vols, req.Properties), out.Release.Release, req.VTPM)
	return out, nil
}

// listed decides each volume on rel and keeps the rows f keeps, never
// nil: an empty list is [] in JSON.
func listed(vols []cinder.Volume, rel nova.Release, f nova.VTPMFilter) Listed {
	out := Listed{Schema: ListSchema, Volumes: []Row{}}
	for _, v := range vols {
		d := nova.DecideVolume(noTPMFlavor, v.Boot(), rel)
		if !f.Keep(d.VTPM) {
			continue
		}
		s := nova.SummarizeImage(nova.VolumeBootProperties(v.ImageMetadata))
		out.Volumes = append(out.Volumes, Row{ID: v.ID, Name: v.Name, Status: v.Status, TPMVersion: s.TPMVersion, TPMModel: s.TPMModel,
			VTPM: nova.OutcomeOf(d), WindowsProfile: s.WindowsProfile, ImageID: v.ImageMetadata["image_id"], Project: v.ProjectID})
	}
	return out
}

// Row is one row of `volume list`.
type Row struct {
	ID             string       `json:"id"`
	Name           string       `json:"name"`
	Status         string       `json:"status"`
	TPMVersion     string       `json:"hw_tpm_version"`
	TPMModel       string       `json:"hw_tpm_model"`
	VTPM           nova.Outcome `json:"vtpm"`
	WindowsProfile string       `json:"windows_profile"`
	ImageID        string       `json:"image_id"`
	Project        string       `json:"project"`
}

// Listed is `volume list`: its JSON is {"schema", "volumes": rows}, and
// its table's columns are the rows' JSON keys in order (a test keeps them
// one schema).
type Listed struct {
	Schema  string `json:"schema"`
	Volumes []Row  `json:"volumes"`
}

// Table implements output.Tabular.
func (l Listed) Table() output.Table {
	t := output.Table{Key: "volumes", Columns: []string{"id", "name", "status", "hw_tpm_version", "hw_tpm_model", "vtpm", "windows_profile", "image_id", "project"}}
	for _, v := range l.Volumes {
		t.Rows = append(t.Rows, output.Record{{Name: "id", Value: v.ID}, {Name: "name", Value: v.Name}, {Name: "status", Value: v.Status},
			{Name: "hw_tpm_version", Value: v.TPMVersion}, {Name: "hw_tpm_model", Value: v.TPMModel},
			{Name: "vtpm", Value: v.VTPM}, {Name: "windows_profile", Value: v.WindowsProfile},
			{Name: "image_id", Value: v.ImageID}, {Name: "project", Value: v.Project}})
	}
	return t
}
