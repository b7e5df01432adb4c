package secrets

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// TestAuditSecretsVolumeBacked: the service reads the boot volumes (one
// volume list) and audits the guests whose vTPM comes from their boot
// volume's image metadata; before, they were left out and their secrets
// listed as a live server's.
func TestAuditSecretsVolumeBacked(t *testing.T) {
	c, sess := scaleSession(t, scale.Config{Guests: 30, Projects: 3, Hypervisors: 2, Others: 3, VolumeBacked: 4})
	if _, byVolume := c.VolumeBackedGuests(); byVolume == 0 {
		t.Fatal("the cloud has no guest whose vTPM comes from its volume")
	}
	a, err := AuditSecrets(context.Background(), sess, AuditRequest{AllProjects: true, ServiceProject: DefaultServiceProject})
	if err != nil {
		t.Fatal(err)
	}
	r := a.Result
	byVolume := 0
	for _, g := range r.Guests {
		if g.Evidence == nova.EvidenceVolume {
			byVolume++
		}
	}
	if _, want := c.VolumeBackedGuests(); r.Summary.Guests != 30 || byVolume != want || len(r.Undecided) != 0 || len(r.Warnings) != 0 {
		t.Errorf("summary %+v, %d guests by volume (want %d), undecided %v, warnings %q", r.Summary, byVolume, want, r.Undecided, r.Warnings)
	}
	for _, o := range r.Orphans {
		if o.Live {
			t.Errorf("a guest's secret is a live server's orphan: %+v", o)
		}
	}
	if n := c.Stats().ByRoute["GET /volume/v3/{id}/volumes/detail"]; n != 1 {
		t.Errorf("%d volume lists, want 1 (%v)", n, c.Stats().ByRoute)
	}
}
