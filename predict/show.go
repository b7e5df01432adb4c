package predict

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// ShowRequest names one image, volume or flavor and the caller's release
// evidence.
type ShowRequest struct {
	Ref string // name or ID
	// AllProjects finds a volume by name in every project (admin).
	AllProjects bool
	Release     nova.ReleaseEvidence
}

// ShowImage reads one image (by ID or unique name), then settles the
// release and decides: an unknown image is said before the compute API
// is asked.
func ShowImage(ctx context.Context, sess *cloud.Session, req ShowRequest) (ShownImage, error) {
	ic, err := sess.Image()
	if err != nil {
		return ShownImage{}, err
	}
	cc, err := sess.Compute()
	if err != nil {
		return ShownImage{}, err
	}
	img, err := glance.FindImage(ctx, ic, req.Ref)
	if err != nil {
		return ShownImage{}, err
	}
	rel, err := compute.ResolveRelease(ctx, cc, req.Release, false)
	if err != nil {
		return ShownImage{}, err
	}
	return imageShown(img, rel), nil
}

// ShowVolume reads one volume (by ID or unique name), then settles the
// release and decides as for a server booted from it.
func ShowVolume(ctx context.Context, sess *cloud.Session, req ShowRequest) (ShownVolume, error) {
	vc, cc, err := volumeClients(sess)
	if err != nil {
		return ShownVolume{}, err
	}
	v, err := cinder.FindVolume(ctx, vc, req.Ref, req.AllProjects)
	if err != nil {
		return ShownVolume{}, err
	}
	rel, err := compute.ResolveRelease(ctx, cc, req.Release, false)
	if err != nil {
		return ShownVolume{}, err
	}
	return volumeShown(v, rel), nil
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
