package flavor

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// CreateRequest is one flavor create: its size, visibility,
// projects and vTPM specs.
type CreateRequest struct {
	Name             string
	VCPUs, RAM, Disk int
	Public           bool
	// Projects (names or IDs) are given access to a private flavor.
	Projects []string
	Change   nova.FlavorRequest
	Release  nova.ReleaseEvidence
}

// CreateResult is the flavor's plan and the advice around it.
type CreateResult struct {
	// Plan is what was (or would have been) written; Err says a write
	// failed, and whether the half-made flavor was deleted again.
	Plan nova.ObjectPlan
	// Created: the flavor was made now. False with Plan.Err nil: a
	// flavor of that name and size existed and its specs were brought
	// in line (a publishing script reran).
	Created bool
	Release nova.ResolvedRelease
	// Conflicts: images that would put a server of the new flavor in
	// ERROR, in Nova's words; ConflictsErr when the images could not be
	// read (advice only).
	Conflicts    []string
	ConflictsErr error
}

// Create settles the release, refuses specs Nova would refuse on
// it, resolves the projects, advises on image conflicts (for the flavor
// as it will be, an existing one's other specs included), then creates
// the flavor with its access and specs, all or nothing
// (EnsureVTPM: the name is looked up once, for the advice
// and the create). A flavor that existed with another size is the
// call's error (*SizeError), nothing written; so is any
// failure before a write. A failed write is Plan.Err.
func Create(ctx context.Context, sess *cloud.Session, req CreateRequest) (CreateResult, error) {
	var out CreateResult
	c, err := flavorClient(ctx, sess, req.Release, &out.Release)
	if err != nil {
		return out, err
	}
	rel := out.Release.Release
	if err := nova.ValidateFlavorRequest(req.Change, rel); err != nil {
		return out, err
	}
	var projects []string
	if len(req.Projects) > 0 {
		ks, err := sess.Identity()
		if err != nil {
			return out, err
		}
		if projects, err = cloud.ProjectIDs(ctx, ks, req.Projects); err != nil {
			return out, err
		}
	}
	specs := req.Change.Specs()
	// One lookup serves the advice and the create: a failed one is the
	// create's error, before anything is written.
	existing, err := compute.LookupFlavorName(ctx, c, req.Name)
	if err != nil {
		return out, err
	}
	// Advice for the flavor as it will be: one that exists with this
	// size keeps the specs not named.
	base := nova.CloudFlavor{Flavor: nova.Flavor{Name: req.Name}}
	if existing != nil {
		base = *existing
	}
	out.Conflicts, out.ConflictsErr = flavorConflicts(ctx, sess, []nova.CloudFlavor{base},
		[]nova.ObjectPlan{{ID: base.ID, Name: req.Name, Changes: nova.Diff(req.Name, base.ID, base.ExtraSpecs, specs, nil)}}, rel)
	plan, created, err := EnsureVTPM(ctx, c, VTPMOpts{
		CreateOpts: compute.CreateOpts{Name: req.Name, VCPUs: req.VCPUs, RAM: req.RAM, Disk: req.Disk, Public: req.Public},
		Projects:   projects, Specs: specs}, rel, existing)
	if err != nil && len(plan.Changes) == 0 {
		return out, err
	}
	plan.Err = err
	out.Plan, out.Created = plan, created
	return out, nil
}
