package image

import (
	"context"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// Confirm is asked, after planning and before anything is written, with
// the plans; an error stops the call there, nothing written, and is the
// call's error. It is asked only when some plan writes (a rerun with
// nothing left to do asks nothing). The caller decides how to ask (a
// flag, a terminal): a service knows neither.
type Confirm func(ctx context.Context, plans []nova.ObjectPlan) error

// confirmWrites asks c, if set and if any plan writes.
func confirmWrites(ctx context.Context, c Confirm, plans []nova.ObjectPlan) error {
	if c == nil {
		return nil
	}
	for _, p := range plans {
		if len(nova.Writes(p.Changes)) > 0 {
			return c(ctx, plans)
		}
	}
	return nil
}
