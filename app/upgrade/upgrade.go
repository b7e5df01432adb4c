package upgrade

import (
	"context"

	"github.com/vtpmctl/vtpmctl/app/hosts"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
)

// Request is one `upgrade check`: the scheduler's new release, and the
// evidence of the current one.
type Request struct {
	To   nova.Release
	From nova.ReleaseEvidence
}

// Check settles the current release, refuses a target older than it
// (*fleet.OlderTargetError) before anything is listed, then says what
// the upgrade does.
func Check(ctx context.Context, sess *cloud.Session, req Request) (fleet.UpgradeResult, error) {
	res, err := hosts.Resolve(ctx, sess, req.From)
	if err != nil {
		return fleet.UpgradeResult{}, err
	}
	from, err := fleet.UpgradeStart(res, req.To)
	if err != nil {
		return fleet.UpgradeResult{}, err
	}
	// The guests as the release the upgrade starts from sees them.
	listAs := res
	listAs.Release = from
	c, err := hosts.ReadCloud(ctx, sess, listAs, nil)
	if err != nil {
		return fleet.UpgradeResult{}, err
	}
	c.Release = res
	return fleet.UpgradeCloud(c, req.To)
}
