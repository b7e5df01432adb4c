package predict

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// VTPMFilter keeps every listed object, only those with a vTPM, or only
// those without.
type VTPMFilter int

const (
	AnyVTPM     VTPMFilter = iota
	WithVTPM               // --vtpm
	WithoutVTPM            // --no-vtpm
)

// Keep says whether f keeps an object that has (or gives) a vTPM.
func (f VTPMFilter) Keep(vtpm bool) bool {
	return f == AnyVTPM || (f == WithVTPM) == vtpm
}

// ImageListRequest selects images: Glance filters on Properties, VTPM on
// whether an image requests a vTPM (carries hw_tpm_version).
type ImageListRequest struct {
	Properties map[string]string
	VTPM       VTPMFilter
}

// ListImages lists the images of Glance's default list (all pages,
// filtered by Glance: public ones, the project's own and accepted shares;
// not other projects' community images, hidden ones or shares not
// accepted) and keeps those VTPM keeps. No release is settled: a row
// shows what the image requests, not what Nova decides.
func ListImages(ctx context.Context, sess *cloud.Session, req ImageListRequest) (ImageList, error) {
	ic, err := sess.Image()
	if err != nil {
		return ImageList{}, err
	}
	imgs, err := glance.ListImages(ctx, ic, glance.ImageListOpts{Properties: req.Properties})
	if err != nil {
		return ImageList{}, err
	}
	return imagesListed(imgs, req.VTPM), nil
}

// imagesListed is the rows of the images f keeps, never nil: an empty
// list is [] in JSON.
func imagesListed(imgs []nova.CloudImage, f VTPMFilter) ImageList {
	out := ImageList{Schema: ImageListSchema, Images: []ListedImage{}}
	for _, img := range imgs {
		if !f.Keep(img.Properties[nova.ImageTPMVersion] != "") {
			continue
		}
		s := nova.SummarizeImage(img.Properties)
		out.Images = append(out.Images, ListedImage{ID: img.ID, Name: img.Name, TPMVersion: s.TPMVersion, TPMModel: s.TPMModel,
			WindowsProfile: s.WindowsProfile, Visibility: img.Visibility, Owner: img.Owner})
	}
	return out
}

// ListRequest selects bootable volumes by image metadata and by the
// vTPM Nova gives a server booted from them.
type ListRequest struct {
	AllProjects bool
	Properties  map[string]string // KEY=VALUE the image metadata must carry
	VTPM        VTPMFilter
	Release     nova.ReleaseEvidence
}

// VolumesResult is `volume list`: the kept volumes, decided, and how the
// release was settled.
type VolumesResult struct {
	Volumes VolumeList
	Release nova.ResolvedRelease
}

// ListVolumes settles the release, then lists the bootable volumes (one
// Cinder list, all pages) whose image metadata matches, decides each as
// Nova would for a server booted from it, and keeps those VTPM keeps.
func ListVolumes(ctx context.Context, sess *cloud.Session, req ListRequest) (VolumesResult, error) {
	var out VolumesResult
	vc, cc, err := volumeClients(sess)
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
	out.Volumes = volumesListed(cinder.Select(vols, req.Properties), out.Release.Release, req.VTPM)
	return out, nil
}

// volumesListed decides each volume on rel and keeps the rows f keeps,
// never nil.
func volumesListed(vols []cinder.Volume, rel nova.Release, f VTPMFilter) VolumeList {
	out := VolumeList{Schema: VolumeListSchema, Volumes: []ListedVolume{}}
	for _, v := range vols {
		d := nova.DecideVolume(noTPMFlavor, v.Boot(), rel)
		if !f.Keep(d.VTPM) {
			continue
		}
		s := nova.SummarizeImage(nova.VolumeBootProperties(v.ImageMetadata))
		out.Volumes = append(out.Volumes, ListedVolume{ID: v.ID, Name: v.Name, Status: v.Status, TPMVersion: s.TPMVersion, TPMModel: s.TPMModel,
			VTPM: outcomeOf(d), WindowsProfile: s.WindowsProfile, ImageID: v.ImageMetadata["image_id"], Project: v.ProjectID})
	}
	return out
}
