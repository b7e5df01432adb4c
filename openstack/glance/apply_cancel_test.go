package glance

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// TestApplyImagePlansCancelled: after Ctrl-C no PATCH is sent, and a plan
// that had changes must carry the cancellation, never pass as written.
func TestApplyImagePlansCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s after cancel", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	gl := &gophercloud.ServiceClient{ProviderClient: &gophercloud.ProviderClient{HTTPClient: *srv.Client()},
		Endpoint: srv.URL + "/v2/", ResourceBase: srv.URL + "/v2/", Type: "image"}
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
