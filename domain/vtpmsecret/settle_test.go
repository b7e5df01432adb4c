package vtpmsecret

import (
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
)

func TestSettleUndetermined(t *testing.T) {
	const (
		gone   = "00000000-0000-4000-8000-000000000001"
		exists = "00000000-0000-4000-8000-000000000002"
		failed = "00000000-0000-4000-8000-000000000003"
		unsure = "00000000-0000-4000-8000-000000000004"
		dup    = "00000000-0000-4000-8000-000000000005"
	)
	undecided := func(id string) Orphan {
		return Orphan{Secret: Secret{ID: "s-" + id, InstanceID: id}, Kind: OrphanUndetermined, Reason: "not among the servers read"}
	}
	r := Result{Orphans: []Orphan{undecided(gone), undecided(exists), undecided(failed), undecided(unsure),
		{Secret: Secret{ID: "s-dup", InstanceID: dup}, Kind: OrphanDuplicate, Reason: "duplicate"}}}
	if got := UndeterminedInstances(r); len(got) != 4 {
		t.Fatalf("asked about %v", got)
	}
	SettleUndetermined(&r, ServerProof{Servers: map[string]nova.ExistenceProof{
		gone:   {State: nova.ServerGone, Reason: "404"},
		exists: {State: nova.ServerExists, ProjectID: "p2", Status: "ACTIVE"},
		failed: {State: nova.ServerUndetermined, Reason: "GET answered 500"},
	}})
	for _, c := range []struct {
		id     string
		kind   OrphanKind
		live   bool
		reason string
	}{
		{gone, OrphanGone, false, "no longer exists"},
		{exists, OrphanLive, true, "exists in project p2 (status ACTIVE)"},
		{failed, OrphanUndetermined, false, "Nova by UUID: GET answered 500"},
		{unsure, OrphanUndetermined, false, "not among the servers read"},
		{dup, OrphanDuplicate, false, "duplicate"},
	} {
		var o Orphan
		for _, x := range r.Orphans {
			if x.InstanceID == c.id {
				o = x
			}
		}
		if o.Kind != c.kind || o.Live != c.live || !strings.Contains(o.Reason, c.reason) {
			t.Errorf("%s: %s live=%v %q, want %s live=%v ~%q", c.id, o.Kind, o.Live, o.Reason, c.kind, c.live, c.reason)
		}
	}
	// the duplicate is no orphan count either way; gone is the one orphan
	if r.Summary.Orphans != 2 || r.Summary.Undetermined != 2 {
		t.Errorf("summary %+v", r.Summary)
	}

	// Nova could not be asked (not admin, a cell down): each stays
	// undetermined and says why.
	r = Result{Orphans: []Orphan{undecided(gone)}}
	var blocked completeness.Gaps
	blocked.Add(completeness.CellDown, "cell1 is down")
	SettleUndetermined(&r, ServerProof{Blocked: blocked})
	if o := r.Orphans[0]; o.Kind != OrphanUndetermined || !strings.Contains(o.Reason, "cell1 is down") || r.Summary.Undetermined != 1 {
		t.Errorf("blocked: %+v %+v", o, r.Summary)
	}
}
