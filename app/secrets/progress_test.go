package secrets

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vtpmctl/vtpmctl/app/inventory"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// progressLog records an audit's progress calls, and whether two ever
// overlapped (the reporter promises one at a time).
type progressLog struct {
	mu      sync.Mutex
	calls   []Progress
	inside  atomic.Int32
	overlap atomic.Bool
}

func (l *progressLog) report(p Progress) {
	if l.inside.Add(1) > 1 {
		l.overlap.Store(true)
	}
	defer l.inside.Add(-1)
	l.mu.Lock()
	l.calls = append(l.calls, p)
	l.mu.Unlock()
}

// phases checks the rules every sequence keeps and returns the phases
// in the order they ran, with each one's last report.
func (l *progressLog) phases(t *testing.T) ([]Phase, map[Phase]Progress) {
	t.Helper()
	if l.overlap.Load() {
		t.Error("two progress calls at once")
	}
	var order []Phase
	last := map[Phase]Progress{}
	for i, p := range l.calls {
		prev, seen := last[p.Phase]
		switch {
		case !seen:
			order = append(order, p.Phase)
			if p.Done != 0 {
				t.Errorf("call %d: phase %s starts at %d", i, p.Phase, p.Done)
			}
		case order[len(order)-1] != p.Phase:
			t.Errorf("call %d: phase %s again after %s", i, p.Phase, order[len(order)-1])
		case p.Done < prev.Done || p.Total != prev.Total:
			t.Errorf("call %d: %s went from %d/%d to %d/%d", i, p.Phase, prev.Done, prev.Total, p.Done, p.Total)
		}
		if p.Total > 0 && p.Done > p.Total {
			t.Errorf("call %d: %s at %d of %d", i, p.Phase, p.Done, p.Total)
		}
		last[p.Phase] = p
	}
	for ph, p := range last {
		if p.Total > 0 && p.Done != p.Total {
			t.Errorf("phase %s ended at %d of %d", ph, p.Done, p.Total)
		}
	}
	return order, last
}

// TestAuditProgress: against the strict synthetic cloud, the progress
// counts the projects done (each one's list and ACL reads; depth first,
// so one ticks every few requests), then, if the server list outlasts
// them, its pages (no total), then the user lookups; every phase with a
// total ends at it, none passes it.
func TestAuditProgress(t *testing.T) {
	const acl, servers = "GET /key-manager/v1/secrets/{id}/acl", "GET /compute/v2.1/servers/detail"
	for _, tc := range []struct {
		name      string
		cfg       scale.Config
		req       AuditRequest
		inventory bool
		want      []Phase
	}{
		{"every project, ACLs", scale.Config{Guests: 1200, Projects: 4, Hypervisors: 2, Others: 30, Users: 40}, AuditRequest{AllProjects: true, ReadACLs: true},
			false, []Phase{PhaseSecrets, PhaseUsers}},
		{"no ACLs", scale.Config{Guests: 60, Projects: 3, Hypervisors: 2}, AuditRequest{AllProjects: true},
			false, []Phase{PhaseSecrets, PhaseUsers}},
		{"servers given", scale.Config{Guests: 40, Projects: 2, Hypervisors: 2}, AuditRequest{Projects: []string{"proj-0000", "proj-0001"}, ReadACLs: true},
			true, []Phase{PhaseSecrets, PhaseUsers}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sess := scaleSession(t, tc.cfg)
			req := tc.req
			if tc.inventory {
				cc, _ := sess.Compute()
				ic, _ := sess.Image()
				inv, err := inventory.List(context.Background(), cc, ic, nova.Zed, inventory.Opts{AllTenants: true})
				if err != nil {
					t.Fatal(err)
				}
				rel, _ := nova.ResolveRelease(nova.ReleaseEvidence{Flag: nova.Zed})
				req.Inventory, req.Resolved = &inv, &rel
				c.Reset()
			}
			var log progressLog
			req.Progress = log.report
			a, err := AuditSecrets(context.Background(), sess, req)
			if err != nil {
				t.Fatal(err)
			}
			order, last := log.phases(t)
			// the server list's pages are shown only when it outlasts
			// the projects: between them and the users, if at all
			if len(order) == 3 && order[1] == PhaseServers && !tc.inventory {
				order = slices.Delete(order, 1, 2)
			}
			if !slices.Equal(order, tc.want) {
				t.Fatalf("phases %v, want %v", order, tc.want)
			}
			st := c.Stats()
			if p, ok := last[PhaseServers]; ok && (p.Total != 0 || p.Done != st.ByRoute[servers]) {
				t.Errorf("servers %d/%d, %d pages served", p.Done, p.Total, st.ByRoute[servers])
			}
			if p := last[PhaseSecrets]; p.Total != len(a.Facts.Audited) {
				t.Errorf("secrets %d/%d, %d projects audited", p.Done, p.Total, len(a.Facts.Audited))
			}
			if tc.req.ReadACLs && st.ByRoute[acl] != a.Facts.Secrets.Len() {
				t.Errorf("%d secrets, %d ACL reads served", a.Facts.Secrets.Len(), st.ByRoute[acl])
			}
			if p := last[PhaseUsers]; p.Total != len(a.Facts.Users) {
				t.Errorf("users %d/%d, %d users looked up", p.Done, p.Total, len(a.Facts.Users))
			}
		})
	}
}

// TestReporterCount: a phase with nothing to do is not reported (a
// Total of 0 would read as "not known"); one whose total is not known is.
func TestReporterCount(t *testing.T) {
	var got []Progress
	r := newReporter(func(p Progress) { got = append(got, p) })
	r.count(PhaseSecrets, 0)
	r.open(PhaseServers)
	r.add(2)
	r.count(PhaseUsers, 1)
	r.one()
	want := []Progress{{PhaseServers, 0, 0}, {PhaseServers, 2, 0}, {PhaseUsers, 0, 1}, {PhaseUsers, 1, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if newReporter(nil) != nil {
		t.Error("a reporter without a func")
	}
}
