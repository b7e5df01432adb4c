package compute

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// ResolveRelease settles the Nova release a job applies: the pinned one
// (ev.Flag) when given, else what the cloud's API evidence leaves open
// (one GET of the versions document), by nova.ResolveRelease. detect
// asks the cloud even when pinned (upgrade check compares both). The
// caller names its own flag in ev.FlagName; errors and hints use it.
func ResolveRelease(ctx context.Context, c *gophercloud.ServiceClient, ev nova.ReleaseEvidence, detect bool) (nova.ResolvedRelease, error) {
	if ev.Flag == nova.ReleaseUnknown || detect {
		det, err := DetectCloudRelease(ctx, c)
		if err != nil {
			return nova.ResolvedRelease{}, err
		}
		ev.Cloud = &det
	}
	return nova.ResolveRelease(ev)
}
