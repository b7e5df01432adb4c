package image

import (
	"context"
	"errors"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// TagRequest is one image set or unset.
type TagRequest struct {
	Images   []string          // names or IDs
	Selector map[string]string // KEY=VALUE every selected image has
	Set      bool              // set, or unset
	Change   nova.ImageRequest
	DryRun   bool
	// Release is the caller's evidence for the conflict advice.
	Release nova.ReleaseEvidence
	// Progress, when set, wraps the writing phase's context so the
	// caller can draw progress.
	Progress func(ctx context.Context) context.Context
	// Confirm, when set, is asked before any write (see Confirm).
	Confirm Confirm
}

// TagResult is the plan per image (written unless DryRun) and the
// advice around it; advice that could not be had is an error of its own,
// never the call's.
type TagResult struct {
	Plans []nova.ObjectPlan
	// Conflicts: image+flavor pairs that would put a server in ERROR
	// (set only), in Nova's words.
	Conflicts    []string
	ConflictsErr error
	// Release is how the conflict advice settled the release.
	Release nova.ResolvedRelease
	// Stale: per changed image, bootable volumes created from it that
	// do not carry the change (after a write; none on a cloud without
	// block storage).
	Stale    []StaleVolumes
	StaleErr error
	// AllProjects: Stale counted every project's volumes (an admin).
	AllProjects bool
	// Mismatched counts the images Glance returned for the selector that
	// do not match it (a filter ignored): left out, never written.
	Mismatched int
}

// StaleVolumes counts the volumes created from one changed image.
type StaleVolumes struct {
	ImageID, Image string
	Count          int
}

// ErrNoImage: the selector matched no image (the caller names its flag).
var ErrNoImage = errors.New("no image matches the selector")

// Tag finds the images, plans the change (a change Nova refuses is the
// call's error, before any write), advises on flavor conflicts and,
// unless DryRun, writes what differs and counts the stale volumes.
func Tag(ctx context.Context, sess *cloud.Session, req TagRequest) (TagResult, error) {
	var out TagResult
	imageClient, err := sess.Image()
	if err != nil {
		return out, err
	}
	imgs, mismatched, err := findImages(ctx, imageClient, req.Images, req.Selector)
	out.Mismatched = mismatched
	if err != nil {
		return out, err
	}
	if len(imgs) == 0 {
		return out, ErrNoImage
	}
	if out.Plans, err = nova.PlanImages(imgs, req.Set, req.Change); err != nil {
		return out, err
	}
	if req.Set {
		out.Conflicts, out.Release, out.ConflictsErr = imageConflicts(ctx, sess, req.Release, imgs, out.Plans)
	}
	if req.DryRun {
		return out, nil
	}
	if err := confirmWrites(ctx, req.Confirm, out.Plans); err != nil {
		return out, err
	}
	wctx := ctx
	if req.Progress != nil {
		wctx = req.Progress(ctx)
	}
	glance.ApplyImagePlans(wctx, imageClient, out.Plans, imgs)
	out.Stale, out.AllProjects, out.StaleErr = staleVolumes(ctx, sess, out.Plans)
	return out, nil
}

// imageConflicts is advice: one flavor list, Nova's rules per pair.
func imageConflicts(ctx context.Context, sess *cloud.Session, ev nova.ReleaseEvidence, imgs []nova.CloudImage, plans []nova.ObjectPlan) ([]string, nova.ResolvedRelease, error) {
	computeClient, err := sess.Compute()
	if err != nil {
		return nil, nova.ResolvedRelease{}, err
	}
	res, err := compute.ResolveRelease(ctx, computeClient, ev, false)
	if err != nil {
		return nil, res, err
	}
	fls, err := compute.ListFlavors(ctx, computeClient)
	if err != nil {
		return nil, res, err
	}
	return nova.ImageConflicts(imgs, plans, fls, res.Release), res, nil
}

// staleVolumes: one bootable-volume list (every project for an admin)
// for the images set or unset without error, whether this run wrote them
// or a run before did: a rerun is how an operator asks again, and the
// volumes stay stale until someone fixes them. Nothing on a cloud without
// block storage.
func staleVolumes(ctx context.Context, sess *cloud.Session, plans []nova.ObjectPlan) ([]StaleVolumes, bool, error) {
	asked := false
	for _, p := range plans {
		asked = asked || p.Err == nil && len(p.Changes) > 0
	}
	if !asked {
		return nil, false, nil
	}
	// Only a catalog without block storage means no volumes to speak
	// of; any other failure is said (StaleErr), not taken for that.
	vc, err := compute.OptionalVolumes(sess.BlockStorage())
	if err != nil || vc == nil {
		return nil, false, err
	}
	roles, _ := sess.TokenRoles()
	admin := false
	for _, r := range roles {
		admin = admin || r == "admin"
	}
	vols, err := cinder.ListVolumes(ctx, vc, cinder.ListOpts{AllTenants: admin, Bootable: true})
	if err != nil {
		return nil, admin, err
	}
	var out []StaleVolumes
	for _, p := range plans {
		if p.Err != nil || len(p.Changes) == 0 {
			continue
		}
		n := 0
		for _, v := range vols {
			if v.ImageMetadata["image_id"] == p.ID && !Carries(v.ImageMetadata, p.Changes) {
				n++
			}
		}
		if n > 0 {
			out = append(out, StaleVolumes{ImageID: p.ID, Image: p.Name, Count: n})
		}
	}
	return out, admin, nil
}

// Carries: the volume's metadata already is what the image became.
func Carries(meta map[string]string, cs []nova.Change) bool {
	for _, c := range cs {
		v, ok := meta[c.Key]
		if c.Action == nova.Removed && ok || c.Action != nova.Removed && v != c.New {
			return false
		}
	}
	return true
}
