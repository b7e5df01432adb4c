package secrets

import (
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/inventory"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// TestAuditSecretsUnconfirmed: the service audits an unconfirmed server
// of the inventory (a guest whose boot volume was untagged since boot)
// from its secret: Gather passes Inventory.Unconfirmed on to the audit.
func TestAuditSecretsUnconfirmed(t *testing.T) {
	ctx := context.Background()
	_, sess := scaleSession(t, scale.Config{Guests: 6, Projects: 2, Hypervisors: 2})
	cc, err1 := sess.Compute()
	ic, err2 := sess.Image()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	inv, err := inventory.List(ctx, cc, ic, nova.Zed, inventory.Opts{AllTenants: true})
	if err != nil || inv.Guests.Len() != 6 {
		t.Fatalf("%d guests, %v", inv.Guests.Len(), err)
	}
	g := inv.Guests.At(0)
	inv.Guests = nova.NewGuestList(inv.Guests.Slice()[1:]...)
	inv.Others[g.ServerID] = nova.OtherServer{Name: g.Name}
	g.Version, g.Model, g.Evidence = "", "", ""
	inv.Unconfirmed = append(inv.Unconfirmed, nova.UnconfirmedServer{Guest: g, Reason: nova.UnconfirmedVolumeNow})
	a, err := AuditSecrets(ctx, sess, AuditRequest{AllProjects: true, ServiceProject: DefaultServiceProject, Inventory: &inv})
	if err != nil {
		t.Fatal(err)
	}
	r := a.Result
	found := false
	for _, x := range r.Guests {
		found = found || x.ServerID == g.ServerID && x.Evidence == nova.EvidenceSecret && x.Unconfirmed == nova.UnconfirmedVolumeNow
	}
	if !found || r.Summary.Guests != 6 || len(r.Undecided) != 0 {
		t.Errorf("unconfirmed %s not audited from its secret: summary %+v, orphans %+v", g.ServerID, r.Summary, r.Orphans)
	}
	for _, o := range r.Orphans {
		if o.Live {
			t.Errorf("a guest's secret is a live server's orphan: %+v", o)
		}
	}
}
