package plan

import (
	"context"
	"errors"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ApplyRequest is one plan apply against a cloud.
type ApplyRequest struct {
	Plan *migration.Plan
	// Release is the caller's evidence (its flag and the flag's name).
	Release nova.ReleaseEvidence
	// Rules tie VMs to boot volumes (VM=VOLUME or a template).
	Rules       []migration.MatchRule
	AllProjects bool // list every project's volumes (admin)
	Write       bool // false: a dry run, nothing is written
	// Progress, when set, wraps the context of each writing phase
	// ("applying", "writing volumes") so the caller can draw progress.
	Progress func(ctx context.Context, phase string) context.Context
}

// ApplyResult is what the plan changes (written unless a dry run) and
// how the release was settled, for the caller's warning.
type ApplyResult struct {
	*Convergence
	Release nova.ResolvedRelease `json:"-"`
}

// ErrNoBlockStorage: the request has volume rules but the cloud's
// catalog has no block storage (the caller names its flag).
var ErrNoBlockStorage = errors.New("the cloud's catalog has no block storage, so there are no volumes to match")

// DiffError is an error of the diff (a plan that cannot be applied as
// written, or a cloud that failed while it was read): the caller names
// the plan file and words FieldErrors with plan keys. Other errors come
// before the diff (connecting, the release).
type DiffError struct{ Err error }

func (e *DiffError) Error() string { return e.Err.Error() }
func (e *DiffError) Unwrap() error { return e.Err }

// Apply settles the release, diffs the plan's images and flavors and the
// planned VMs' boot volumes (when the cloud has block storage) against
// the cloud and, with Write, writes the differences.
func Apply(ctx context.Context, sess *cloud.Session, req ApplyRequest) (ApplyResult, error) {
	computeClient, err := sess.Compute()
	if err != nil {
		return ApplyResult{}, err
	}
	imageClient, err := sess.Image()
	if err != nil {
		return ApplyResult{}, err
	}
	res, err := compute.ResolveRelease(ctx, computeClient, req.Release, false)
	if err != nil {
		return ApplyResult{}, err
	}
	out := ApplyResult{Release: res}
	conv, err := DiffPlan(ctx, imageClient, computeClient, req.Plan, res.Release)
	if err != nil {
		return out, &DiffError{err}
	}
	out.Convergence = conv
	// Boot volumes: nil when the catalog has no block storage (then no
	// disk can have landed on a volume).
	volumeClient, err := compute.OptionalVolumes(sess.BlockStorage())
	if err != nil {
		return out, err
	}
	if volumeClient != nil {
		if err := DiffVolumes(ctx, volumeClient, conv, req.Plan, req.Rules, req.AllProjects); err != nil {
			return out, &DiffError{err}
		}
	} else if len(req.Rules) > 0 {
		return out, ErrNoBlockStorage
	}
	if !req.Write {
		return out, nil
	}
	progress := req.Progress
	if progress == nil {
		progress = func(ctx context.Context, _ string) context.Context { return ctx }
	}
	ApplyConvergence(progress(ctx, "applying"), imageClient, computeClient, conv, res.Release)
	if volumeClient != nil {
		ApplyVolumes(progress(ctx, "writing volumes"), volumeClient, conv)
	}
	return out, nil
}
