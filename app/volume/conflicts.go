package volume

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ConflictRequest: boot volumes as they will be after a change.
type ConflictRequest struct {
	Volumes []nova.BootVolume
	// Release is the caller's evidence.
	Release nova.ReleaseEvidence
}

// Conflict is a vTPM flavor that puts a server booted from Volume in
// ERROR (a refusal at scheduling: the user meets it after create).
type Conflict struct {
	Volume, Flavor string
	Decision       nova.Decision
}

// Conflicts settles the release, lists the flavors once and decides each
// volume with each flavor that asks for a vTPM. It returns how the
// release was settled, for the caller's warning.
func Conflicts(ctx context.Context, sess *cloud.Session, req ConflictRequest) ([]Conflict, nova.ResolvedRelease, error) {
	computeClient, err := sess.Compute()
	if err != nil {
		return nil, nova.ResolvedRelease{}, err
	}
	res, err := compute.ResolveRelease(ctx, computeClient, req.Release, false)
	if err != nil {
		return nil, res, err
	}
	fls, err := compute.ListFlavors(ctx, computeClient)
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
