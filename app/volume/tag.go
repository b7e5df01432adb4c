package volume

import (
	"context"
	"errors"
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

// TagRequest is one volume set or unset.
type TagRequest struct {
	Volumes     []string          // names or IDs
	Selector    map[string]string // KEY=VALUE every selected volume's image metadata has
	AllProjects bool              // find them in every project (admin)
	Set         bool              // set, or unset
	Change      nova.ImageRequest
	DryRun      bool
	// Release is the caller's evidence for the conflict advice.
	Release nova.ReleaseEvidence
	// Progress, when set, wraps the writing phase's context.
	Progress func(ctx context.Context) context.Context
	// Confirm, when set, is asked before any write (see Confirm).
	Confirm Confirm
}

// TagResult is the plan per volume (written unless DryRun) and the
// conflict advice (set only; advice that could not be had is an error of
// its own, never the call's).
type TagResult struct {
	Plans        []nova.ObjectPlan
	Conflicts    []Conflict
	ConflictsErr error
	Release      nova.ResolvedRelease // how the advice settled the release
}

// ErrNoVolume: the selector matched no bootable volume.
var ErrNoVolume = errors.New("no bootable volume matches the selector")

// NotBootableError: a volume named for `volume set` is not bootable (a
// data volume). Nova boots no server from it and reads no image metadata
// there (InvalidBDMVolumeNotBootable), so tagging it only misleads; a
// Selector skips such volumes, and a name must not slip one through.
type NotBootableError struct{ Volume, ID string }

func (e *NotBootableError) Error() string {
	name := e.ID
	if e.Volume != "" {
		name = e.Volume + " (" + e.ID + ")"
	}
	return fmt.Sprintf("volume %s is not bootable: Nova boots no server from it, so volume set does not tag it (a data volume? name the boot volume)", name)
}

// refuseNotBootable refuses every named volume that is not bootable, all
// together, before anything is written (as ResolveVolumes does unknown
// names).
func refuseNotBootable(vols []cinder.Volume) error {
	var errs []error
	for _, v := range vols {
		if !v.Bootable {
			errs = append(errs, &NotBootableError{Volume: v.Name, ID: v.ID})
		}
	}
	return errors.Join(errs...)
}

// Tag finds the bootable volumes (set refuses a named one that is not:
// NotBootableError), plans the change on their image metadata with the
// image commands' profile and refusals (before any write), advises on
// flavor conflicts and, unless DryRun, writes what differs.
func Tag(ctx context.Context, sess *cloud.Session, req TagRequest) (TagResult, error) {
	var out TagResult
	vc, err := sess.BlockStorage()
	if err != nil {
		return out, err
	}
	vols, err := cinder.ResolveVolumes(ctx, vc, req.Volumes, req.Selector, req.AllProjects)
	if err != nil {
		return out, err
	}
	if len(vols) == 0 {
		return out, ErrNoVolume
	}
	if req.Set {
		// Unset stays open to a data volume: it cleans up what was set there.
		if err := refuseNotBootable(vols); err != nil {
			return out, err
		}
	}
	if out.Plans, err = Plan(vols, req.Set, req.Change); err != nil {
		return out, err
	}
	if req.Set {
		creq := ConflictRequest{Release: req.Release}
		for i, v := range vols {
			after := v.Boot()
			after.ImageMetadata = nova.Apply(v.ImageMetadata, out.Plans[i].Changes)
			creq.Volumes = append(creq.Volumes, after)
		}
		out.Conflicts, out.Release, out.ConflictsErr = Conflicts(ctx, sess, creq)
	}
	if !req.DryRun {
		if err := confirmWrites(ctx, req.Confirm, out.Plans); err != nil {
			return out, err
		}
		wctx := ctx
		if req.Progress != nil {
			wctx = req.Progress(ctx)
		}
		cinder.ApplyVolumePlans(wctx, vc, out.Plans, vols)
	}
	return out, nil
}

// Plan is nova.PlanImages for volumes: the same profile and the same
// refusals, computed on the volume's image metadata.
func Plan(vols []cinder.Volume, set bool, req nova.ImageRequest) ([]nova.ObjectPlan, error) {
	plans := make([]nova.ObjectPlan, 0, len(vols))
	for _, v := range vols {
		p := nova.ObjectPlan{ID: v.ID, Name: nova.DisplayName(v.Name, v.ID)}
		if set {
			props, notes, err := nova.PlanImageSet(v.ImageMetadata, req)
			if err != nil {
				return nil, fmt.Errorf("volume %s: %w", p.Name, err)
			}
			p.Changes, p.Notes = nova.Diff(p.Name, v.ID, v.ImageMetadata, props, nil), notes
		} else {
			p.Changes = nova.Diff(p.Name, v.ID, v.ImageMetadata, nil, nova.PlanImageUnset(v.ImageMetadata, req.Windows))
		}
		p.NearMisses = nova.NearMissesAfter(v.ImageMetadata, p.Changes, nova.ImageKeys)
		plans = append(plans, p)
	}
	return plans, nil
}
