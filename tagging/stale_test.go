package tagging

import (
	"context"
	"errors"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/nova"
)

// TestStaleVolumesBlockStorageError: only a catalog without block
// storage silently means "no volumes"; any other failure to get the
// Cinder client is StaleErr, so image set warns instead of dropping the
// advice.
func TestStaleVolumesBlockStorageError(t *testing.T) {
	boom := errors.New("two block-storage endpoints in region r1")
	plans := []nova.ObjectPlan{{ID: "i1", Name: "win", Changes: []nova.Change{{Key: nova.ImageTPMVersion, New: "2.0", Action: nova.Added}}}}
	for _, c := range []struct {
		name    string
		locate  error
		wantErr bool
	}{
		{"no block storage in the catalog", &gophercloud.ErrEndpointNotFound{}, false},
		{"another failure", boom, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pc := &gophercloud.ProviderClient{EndpointLocator: func(gophercloud.EndpointOpts) (string, error) { return "", c.locate }}
			sess := &cloud.Session{Provider: pc, CloudName: "c1"}
			stale, _, err := staleVolumes(context.Background(), sess, plans)
			if stale != nil || (err != nil) != c.wantErr || c.wantErr && !errors.Is(err, boom) {
				t.Errorf("stale %v, err %v; want an error: %v", stale, err, c.wantErr)
			}
		})
	}
}
