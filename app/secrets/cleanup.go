package secrets

import (
	"context"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// PlanCleanup asks Nova, by UUID, about the instance of every orphan
// candidate of an audit, then plans (vtpmsecret.NewCleanupPlan): nothing
// is deleted. limit bounds the GETs in flight.
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
	proof := compute.ProveGone(ctx, c, vtpmsecret.CleanupCandidates(a.Result), admin, limit)
	if err := ctx.Err(); err != nil {
		return vtpmsecret.CleanupPlan{}, err
	}
	return vtpmsecret.NewCleanupPlan(a.Result, a.Origin(), vtpmsecret.ServerProof(proof), time.Now()), nil
}
