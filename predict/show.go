package predict

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/cinder"
	"github.com/vtpmctl/vtpmctl/compute"
	"github.com/vtpmctl/vtpmctl/glance"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/nova"
)

// ShowRequest names one image or volume and the caller's release evidence.
type ShowRequest struct {
	Ref string // name or ID
	// AllProjects finds a volume by name in every project (admin).
	AllProjects bool
	Release     nova.ReleaseEvidence
}

// ShownImage is an image and the release whose rules apply to it.
type ShownImage struct {
	Image   nova.CloudImage
	Release nova.ResolvedRelease
}

// ShowImage reads one image (by ID or unique name), then settles the
// release: an unknown image is said before the compute API is asked.
func ShowImage(ctx context.Context, sess *cloud.Session, req ShowRequest) (ShownImage, error) {
	var out ShownImage
	ic, err := sess.Image()
	if err != nil {
		return out, err
	}
	cc, err := sess.Compute()
	if err != nil {
		return out, err
	}
	if out.Image, err = glance.FindImage(ctx, ic, req.Ref); err != nil {
		return out, err
	}
	out.Release, err = compute.ResolveRelease(ctx, cc, req.Release, false)
	return out, err
}

// ShownVolumes are volumes and the release whose rules apply to them.
type ShownVolumes struct {
	Volumes []cinder.Volume
	Release nova.ResolvedRelease
}

// ShowVolume reads one volume (by ID or unique name), then settles the
// release.
func ShowVolume(ctx context.Context, sess *cloud.Session, req ShowRequest) (ShownVolumes, error) {
	var out ShownVolumes
	vc, cc, err := volumeClients(sess)
	if err != nil {
		return out, err
	}
	v, err := cinder.FindVolume(ctx, vc, req.Ref, req.AllProjects)
	if err != nil {
		return out, err
	}
	out.Volumes = []cinder.Volume{v}
	out.Release, err = compute.ResolveRelease(ctx, cc, req.Release, false)
	return out, err
}

// ListRequest selects bootable volumes by image metadata.
type ListRequest struct {
	AllProjects bool
	Properties  map[string]string // KEY=VALUE the image metadata must carry
	Release     nova.ReleaseEvidence
}

// ListVolumes settles the release, then lists the bootable volumes (one
// Cinder list, all pages) whose image metadata matches.
func ListVolumes(ctx context.Context, sess *cloud.Session, req ListRequest) (ShownVolumes, error) {
	var out ShownVolumes
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
	out.Volumes = cinder.Select(vols, req.Properties)
	return out, nil
}

func volumeClients(sess *cloud.Session) (vc, cc *gophercloud.ServiceClient, err error) {
	if cc, err = sess.Compute(); err != nil {
		return nil, nil, err
	}
	if vc, err = sess.BlockStorage(); err != nil {
		return nil, nil, err
	}
	return vc, cc, nil
}
