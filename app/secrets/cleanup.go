package secrets

import (
	"context"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// PlanCleanup asks Nova, by UUID, about the instance of every orphan
// candidate of an audit (every region's Nova, when the key manager is
// several regions': proveGone), then plans (vtpmsecret.NewCleanupPlan):
// nothing is deleted. limit bounds the GETs in flight.
func PlanCleanup(ctx context.Context, sess *cloud.Session, a Audited, limit int) (vtpmsecret.CleanupPlan, error) {
	c, err := sess.Compute()
	if err != nil {
		return vtpmsecret.CleanupPlan{}, err
	}
	_, admin, err := sess.TokenProject()
	if err != nil {
		return vtpmsecret.CleanupPlan{}, err
	}
	if limit < 1 {
		limit = DefaultConcurrency
	}
	proof := proveGone(ctx, sess, c, vtpmsecret.CleanupCandidates(a.Result), admin, limit)
	if err := ctx.Err(); err != nil {
		return vtpmsecret.CleanupPlan{}, err
	}
	return vtpmsecret.NewCleanupPlan(a.Result, a.Origin(), proof, time.Now()), nil
}

// proveGone is compute.ProveGone asked of every Nova that could hold the
// instances: the session's (c) when the catalog lists the key manager's
// endpoint under its region only; else each region's that lists it, the
// session's first, each asked only about the UUIDs every region before
// it answered 404 for (vtpmsecret.AcrossRegions), so a key manager two
// regions share costs the second region's two service lists and one GET
// per instance the first proved gone, and nothing more.
func proveGone(ctx context.Context, sess *cloud.Session, c *gophercloud.ServiceClient, ids []string, admin bool, limit int) vtpmsecret.ServerProof {
	regions, err := sess.SharedRegions("key-manager")
	if err != nil {
		p := vtpmsecret.ServerProof{Endpoint: c.ResourceBaseURL(), Servers: make(map[string]nova.ExistenceProof, len(ids))}
		p.Blocked.Add(completeness.Failed, "which regions share the key manager cannot be read from the catalog (%s): another region's Nova may hold the instances", oneLine(err))
		for _, id := range ids {
			p.Servers[id] = nova.ExistenceProof{State: nova.ServerUndetermined, Reason: p.Blocked.String()}
		}
		return p
	}
	if len(regions) < 2 {
		return serverProof(compute.ProveGone(ctx, c, ids, admin, limit))
	}
	var answers []vtpmsecret.RegionAnswer
	ask := ids
	for i, r := range regions {
		if i > 0 && len(ask) == 0 {
			break // every instance decided (exists, or undetermined)
		}
		rc, err := sess.ComputeIn(r)
		if err != nil {
			answers = append(answers, vtpmsecret.RegionAnswer{Region: r, Err: oneLine(err)})
			break
		}
		p := serverProof(compute.ProveGone(ctx, rc, ask, admin, limit))
		answers = append(answers, vtpmsecret.RegionAnswer{Region: r, Proof: p})
		ask = vtpmsecret.GoneIn(p, ask)
	}
	return vtpmsecret.AcrossRegions(regions, ids, answers)
}

// serverProof is one Nova's answer as the plan reads it.
func serverProof(g compute.GoneProof) vtpmsecret.ServerProof {
	return vtpmsecret.ServerProof{Endpoint: g.Endpoint, Servers: g.Servers, Blocked: g.Blocked}
}
