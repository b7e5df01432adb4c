package tagging

import (
	"context"
	"errors"
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// VolumesRequest is one volume set or unset.
type VolumesRequest struct {
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

// VolumesResult is the plan per volume (written unless DryRun) and the
// conflict advice (set only; advice that could not be had is an error of
// its own, never the call's).
type VolumesResult struct {
	Plans        []nova.ObjectPlan
	Conflicts    []Conflict
	ConflictsErr error
	Release      nova.ResolvedRelease // how the advice settled the release
}

// ErrNoVolume: the selector matched no bootable volume.
var ErrNoVolume = errors.New("no bootable volume matches the selector")

// NotBootableError: a volume named for `volume set` is not bootable (a
// data volume). Nova boots no server from it and reads no image metadata
// there (InvalidBDMVolumeNotBootable), so tagging it only misleads;
// --select skips such volumes, and a name must not slip one through.
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

// Volumes finds the bootable volumes (set refuses a named one that is
// not: NotBootableError), plans the change on their image metadata with
// the image commands' profile and refusals (before any write), advises on
// flavor conflicts and, unless DryRun, writes what differs.
func Volumes(ctx context.Context, sess *cloud.Session, req VolumesRequest) (VolumesResult, error) {
	var out VolumesResult
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
	if out.Plans, err = PlanVolumes(vols, req.Set, req.Change); err != nil {
		return out, err
	}
	if req.Set {
		creq := ConflictRequest{Release: req.Release}
		for i, v := range vols {
			after := v.Boot()
			after.ImageMetadata = nova.Apply(v.ImageMetadata, out.Plans[i].Changes)
			creq.Volumes = append(creq.Volumes, after)
		}
		out.Conflicts, out.Release, out.ConflictsErr = VolumeConflicts(ctx, sess, creq)
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

// PlanVolumes is nova.PlanImages for volumes: the same profile and the
// same refusals, computed on the volume's image metadata.
func PlanVolumes(vols []cinder.Volume, set bool, req nova.ImageRequest) ([]nova.ObjectPlan, error) {
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
		plans = append(plans, p)
	}
	return plans, nil
}

// ConflictRequest: boot volumes as they will be after a change.
type ConflictRequest struct {
	Volumes []nova.BootVolume
	// Release is the caller's evidence (its flag and the flag's name).
	Release nova.ReleaseEvidence
}

// Conflict is a vTPM flavor that puts a server booted from Volume in
// ERROR (a refusal at scheduling: the user meets it after create).
type Conflict struct {
	Volume, Flavor string
	Decision       nova.Decision
}

// VolumeConflicts settles the release, lists the flavors once and
// decides each volume with each flavor that asks for a vTPM. It returns
// how the release was settled, for the caller's warning.
func VolumeConflicts(ctx context.Context, sess *cloud.Session, req ConflictRequest) ([]Conflict, nova.ResolvedRelease, error) {
	computeClient, err := sess.Compute()
	if err != nil {
		return nil, nova.ResolvedRelease{}, err
	}
	res, err := compute.ResolveRelease(ctx, computeClient, req.Release, false)
	if err != nil {
		return nil, res, err
	}
	fls, err := compute.ListFlavors(ctx, compute.ComputeClient(computeClient))
	if err != nil {
		return nil, res, err
	}
	var out []Conflict
	for _, v := range req.Volumes {
		for _, f := range fls {
			if len(nova.VTPMKeys(f.ExtraSpecs, nova.IsVTPMFlavorKey)) == 0 {
				continue
			}
			if d := nova.DecideVolume(f.Flavor, v, res.Release); d.Error != nil && d.Error.Stage == nova.StageScheduling {
				out = append(out, Conflict{Volume: nova.DisplayName(v.Name, v.ID), Flavor: f.Name, Decision: d})
			}
		}
	}
	return out, res, nil
}
