package image

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
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

// TestStaleVolumesOnRerun: an image set that writes nothing (the image
// already says it) still names the volumes created from the image that
// do not: a rerun is how the operator asks again. The fixture's volume
// from fx-win11 has its vTPM but no machine type; an image whose plan
// failed is not looked at.
func TestStaleVolumesOnRerun(t *testing.T) {
	fakecloud.New(t).Standard()
	sess, err := cloud.Connect(context.Background(), cloud.Options{Cloud: "fake", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	const win11 = "15efa622-9c42-48a2-b81c-486deb166f12"
	plans := []nova.ObjectPlan{
		{ID: win11, Name: "fx-win11", Changes: []nova.Change{
			{Key: nova.ImageTPMVersion, Old: "2.0", New: "2.0", Action: nova.Unchanged},
			{Key: "hw_machine_type", Old: "q35", New: "q35", Action: nova.Unchanged}}},
		{ID: "314a5ae0-f878-4fe2-bbaf-be4b6bb72f2a", Name: "fx-plain", Err: errors.New("refused"),
			Changes: []nova.Change{{Key: nova.ImageTPMVersion, New: "2.0", Action: nova.Added}}},
	}
	stale, _, err := staleVolumes(context.Background(), sess, plans)
	if err != nil || len(stale) != 1 || stale[0].ImageID != win11 || stale[0].Count != 1 {
		t.Errorf("stale %+v, err %v; want fx-win11's one volume", stale, err)
	}
}
