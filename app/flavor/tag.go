package flavor

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// TagRequest is one flavor set or unset.
type TagRequest struct {
	Flavors []string // names or IDs
	Set     bool     // set, or unset
	// Change is what set writes; it is checked against the cloud's
	// release (a nova.FieldError the caller words with its flags).
	Change nova.FlavorRequest
	// Unset are the extra specs unset removes; none: every vTPM key.
	Unset  []string
	DryRun bool
	// Release is the caller's evidence; the release decides what Nova
	// accepts, so an unknown release is the call's error.
	Release nova.ReleaseEvidence
	// Progress, when set, wraps the writing phase's context so the
	// caller can draw progress.
	Progress func(ctx context.Context) context.Context
	// Confirm, when set, is asked before any write (see Confirm).
	Confirm Confirm
}

// TagResult is the plan per flavor (written unless DryRun, a failed
// write in its Err) and the advice around it; advice that could not be
// had is an error of its own, never the call's.
type TagResult struct {
	Plans   []nova.ObjectPlan
	Release nova.ResolvedRelease
	// Conflicts: flavor+image pairs that would put a server in ERROR
	// (set only), in Nova's words.
	Conflicts    []string
	ConflictsErr error
	// Servers: per flavor with a change (written or, in a dry run,
	// planned), the servers built from it, which keep the specs Nova
	// copied into them at boot.
	Servers []ServerCount
}

// ServerCount counts the servers using one changed flavor; Err when they
// could not be counted (listing every project needs admin).
type ServerCount struct {
	FlavorID, Flavor string
	Count            int
	Err              error
}

// vtpmFlavorKeys is what unset removes when no key is named.
var vtpmFlavorKeys = []string{nova.FlavorTPMVersion, nova.FlavorTPMModel, nova.FlavorTPMSecretSecurity}

// Tag settles the release, refuses a change Nova would refuse on it,
// finds the flavors (every unknown one said together), plans the change
// (a flavor Nova would refuse afterwards is the call's error, before any
// write), advises on image conflicts, writes what differs unless DryRun,
// and counts the servers using each changed flavor.
func Tag(ctx context.Context, sess *cloud.Session, req TagRequest) (TagResult, error) {
	var out TagResult
	specs, unset := req.Change.Specs(), []string(nil)
	if !req.Set {
		specs, unset = nil, req.Unset
		if len(unset) == 0 {
			unset = vtpmFlavorKeys
		}
	}
	c, err := flavorClient(ctx, sess, req.Release, &out.Release)
	if err != nil {
		return out, err
	}
	rel := out.Release.Release
	if err := nova.ValidateFlavorRequest(req.Change, rel); err != nil {
		return out, err
	}
	fls, err := compute.ResolveFlavors(ctx, c, req.Flavors)
	if err != nil {
		return out, err
	}
	plans, err := nova.PlanFlavors(fls, specs, unset, rel)
	if err != nil {
		return out, err
	}
	if req.Set {
		out.Conflicts, out.ConflictsErr = flavorConflicts(ctx, sess, fls, plans, rel)
	}
	if !req.DryRun {
		if err := confirmWrites(ctx, req.Confirm, plans); err != nil {
			return out, err
		}
		wctx := ctx
		if req.Progress != nil {
			wctx = req.Progress(ctx)
		}
		ApplyPlans(wctx, c, plans)
	}
	out.Plans = plans
	out.Servers = serversUsing(ctx, c, plans)
	return out, nil
}

// flavorClient settles the release into res, then gives the compute
// client (each flavor write sets 2.86 itself, so Nova validates the
// specs too).
func flavorClient(ctx context.Context, sess *cloud.Session, ev nova.ReleaseEvidence, res *nova.ResolvedRelease) (*gophercloud.ServiceClient, error) {
	c, err := sess.Compute()
	if err != nil {
		return nil, err
	}
	r, err := compute.ResolveRelease(ctx, c, ev, false)
	if err != nil {
		return nil, err
	}
	*res = r
	return c, nil
}

// flavorConflicts is advice: one image list, Nova's rules per pair of a
// changed flavor and an image that asks for a vTPM.
func flavorConflicts(ctx context.Context, sess *cloud.Session, fls []nova.CloudFlavor, plans []nova.ObjectPlan, rel nova.Release) ([]string, error) {
	ic, err := sess.Image()
	if err != nil {
		return nil, err
	}
	imgs, err := glance.ListImages(ctx, ic, glance.ImageListOpts{})
	if err != nil {
		return nil, err
	}
	return nova.FlavorConflicts(fls, plans, imgs, rel), nil
}

// serversUsing counts, per flavor with a change and no failed write, the
// servers of every project built from it.
func serversUsing(ctx context.Context, c *gophercloud.ServiceClient, plans []nova.ObjectPlan) []ServerCount {
	var out []ServerCount
	for _, p := range plans {
		if len(nova.Writes(p.Changes)) == 0 || p.Err != nil {
			continue
		}
		n, err := compute.ServersUsingFlavor(ctx, c, p.ID)
		out = append(out, ServerCount{FlavorID: p.ID, Flavor: p.Name, Count: n, Err: err})
	}
	return out
}
