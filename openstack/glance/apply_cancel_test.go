package glance

import (
	"context"
	"errors"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestApplyImagePlansCancelled: after Ctrl-C no PATCH is sent, and a plan
// that had changes must carry the cancellation, never pass as written.
func TestApplyImagePlansCancelled(t *testing.T) {
	gl := fakecloud.New(t).ServiceClient("image") // no stub: any request fails the test
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	plans := []nova.ObjectPlan{
		{ID: "i1", Changes: []nova.Change{{Key: nova.ImageTPMVersion, New: "2.0", Action: nova.Added}}},
		{ID: "i2", Changes: []nova.Change{{Key: nova.ImageTPMVersion, Old: "2.0", New: "2.0", Action: nova.Unchanged}}},
	}
	ApplyImagePlans(ctx, gl, plans, []nova.CloudImage{{ID: "i1"}, {ID: "i2"}})
	if !errors.Is(plans[0].Err, context.Canceled) {
		t.Errorf("cancelled before writing: Err %v, want context.Canceled", plans[0].Err)
	}
	if plans[1].Err != nil {
		t.Errorf("nothing to write: Err %v", plans[1].Err)
	}
}
