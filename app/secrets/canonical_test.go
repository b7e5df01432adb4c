package secrets

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// A secret named for the upper-case form of a live guest's UUID is that
// guest's: the guest has its secret and the secret is no orphan, so no
// cleanup candidate (RegionOne's Nova, as on PostgreSQL, answers 404 for
// the upper-case form).
func TestUpperCaseSecretNameIsTheGuests(t *testing.T) {
	cfg := scale.Config{Guests: 4, Projects: 1, Hypervisors: 1, UpperCaseNames: 1}
	c, a, p := planIn(t, cfg, func(*scale.Cloud, []string) {})
	guest := c.ServerID(0)
	for _, g := range a.Result.Guests {
		if g.ServerID == guest && (g.Failed() || g.SecretID == "") {
			t.Errorf("guest %s: %+v", guest, g)
		}
	}
	if r := a.Result; r.Summary.Failed != 0 || r.Summary.Orphans != 0 || len(r.Orphans) != 0 {
		t.Errorf("summary %+v, orphans %+v", r.Summary, r.Orphans)
	}
	if p.Deletes() != 0 || p.Proof.Asked != 0 {
		t.Errorf("%d delete(s), proof %+v", p.Deletes(), p.Proof)
	}
}
