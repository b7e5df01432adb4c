package secrets

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud/scale"
)

// The audit itself, when the key manager is shared: a secret whose
// instance RegionOne's Nova does not list may be a RegionTwo guest's.
// The audit lists RegionTwo's servers once (every project's, page by
// page) and calls an instance gone only when neither list has it and
// both are complete.

// auditIn audits every project of a small synthetic cloud with two
// orphan secrets, whose instances (their IDs setup gets, then the test)
// RegionOne's Nova does not list; setup changes the cloud before the
// login.
func auditIn(t *testing.T, setup func(c *scale.Cloud, orphans []string)) (*scale.Cloud, Audited, []string) {
	t.Helper()
	var orphans []string
	c, sess := scaleSession(t, twoOrphans, func(c *scale.Cloud) {
		for k := 0; k < twoOrphans.Orphans; k++ {
			orphans = append(orphans, c.ServerID(c.NumServers()+k))
		}
		if setup != nil {
			setup(c, orphans)
		}
	})
	a, err := AuditSecrets(context.Background(), sess, AuditRequest{AllProjects: true})
	if err != nil {
		t.Fatal(err)
	}
	return c, a, orphans
}

// orphanOf is the audit's row for instance's secret.
func orphanOf(t *testing.T, r vtpmsecret.Result, instance string) vtpmsecret.Orphan {
	t.Helper()
	for _, o := range r.Orphans {
		if o.InstanceID == instance {
			return o
		}
	}
	t.Fatalf("no row for instance %s in %+v", instance, r.Orphans)
	return vtpmsecret.Orphan{}
}

// RegionTwo's Nova lists one of the two instances: its secret is
// RegionTwo's live guest's (server_exists, "live in region RegionTwo"),
// neither an orphan nor audited as a guest here; the other, in neither
// list, is an orphan. RegionTwo is asked one list, a page at a time
// (here a server a page: its page and the empty one after), and nothing
// else.
func TestAuditSharedKeyManagerLiveInOtherRegion(t *testing.T) {
	c, a, o := auditIn(t, func(c *scale.Cloud, o []string) {
		regionTwo{live: map[string]bool{o[0]: true}, maxLimit: 1}.serveList(c)
	})
	r := a.Result
	live, gone := orphanOf(t, r, o[0]), orphanOf(t, r, o[1])
	if live.Kind != vtpmsecret.OrphanLive || !live.Live || live.Region != "RegionTwo" || !strings.Contains(live.Reason, "live in region RegionTwo") {
		t.Errorf("RegionTwo's guest: %s live=%v region %q %q", live.Kind, live.Live, live.Region, live.Reason)
	}
	if gone.Kind != vtpmsecret.OrphanGone || gone.Live || gone.Region != "" || !strings.Contains(gone.Reason, "nor region RegionTwo's") {
		t.Errorf("in neither list: %s %q", gone.Kind, gone.Reason)
	}
	if s := r.Summary; s.Orphans != 1 || s.Undetermined != 0 || s.Guests != twoOrphans.Guests || len(r.Incomplete) != 0 {
		t.Errorf("summary %+v, incomplete %v", s, r.Incomplete)
	}
	if pages, all := c.Count("GET "+regionTwoNova+"servers/detail?"), c.Count("GET "+regionTwoNova); pages != 2 || all != 2 {
		t.Errorf("RegionTwo: %d server list page(s) of %d request(s); want 2 of 2", pages, all)
	}
}

// RegionTwo's list cannot be read completely: a secret whose instance
// RegionOne does not list is undetermined, its reason and a partial read
// naming RegionTwo; never an orphan. What the list did show is still
// RegionTwo's guest (a partial record of a cell down is a server too).
func TestAuditSharedKeyManagerOtherRegionUnread(t *testing.T) {
	const elsewhere = "dddddddd-0000-4000-8000-000000000001" // a down cell's server
	for _, tc := range []struct {
		name   string
		setup  func(c *scale.Cloud, o []string)
		live   bool // o[0] is RegionTwo's guest
		kind   completeness.Kind
		reason string
	}{
		{"its server list fails", func(c *scale.Cloud, _ []string) { regionTwo{listStatus: 500}.serveList(c) },
			false, completeness.Failed, "region RegionTwo's servers could not be listed: listing servers:"},
		{"a cell down", func(c *scale.Cloud, o []string) {
			regionTwo{live: map[string]bool{o[0]: true}, partial: []string{elsewhere}}.serveList(c)
		}, true, completeness.CellDown, "region RegionTwo: Nova listed 1 server(s) as partial records"},
		{"no compute endpoint", func(c *scale.Cloud, _ []string) {
			c.Catalog = append(c.Catalog, fakecloud.Service{Type: "key-manager", Path: "/key-manager/", Region: "RegionTwo"})
		}, false, completeness.Failed, `region RegionTwo's servers could not be listed: no compute endpoint (interface public) for region "RegionTwo"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, a, o := auditIn(t, tc.setup)
			r := a.Result
			undetermined := o
			if tc.live {
				if l := orphanOf(t, r, o[0]); l.Kind != vtpmsecret.OrphanLive || l.Region != "RegionTwo" {
					t.Errorf("listed by RegionTwo: %s %q", l.Kind, l.Reason)
				}
				undetermined = o[1:]
			}
			for _, id := range undetermined {
				if u := orphanOf(t, r, id); u.Kind != vtpmsecret.OrphanUndetermined || u.Live || !strings.Contains(u.Reason, tc.reason) {
					t.Errorf("%s: %s %q, want undetermined naming %q", id, u.Kind, u.Reason, tc.reason)
				}
			}
			if s := r.Summary; s.Orphans != 0 || s.Undetermined != len(undetermined) {
				t.Errorf("summary %+v", s)
			}
			if !slices.ContainsFunc(r.Incomplete, func(g completeness.Gap) bool { return g.Kind == tc.kind && strings.Contains(g.String(), tc.reason) }) {
				t.Errorf("incomplete %v, want a %s gap naming RegionTwo", r.Incomplete, tc.kind)
			}
		})
	}
}

// A key manager the catalog lists under this region only (RegionTwo
// has a Nova and a key manager of its own): the audit is as it was
// without a second region, request for request, and its orphans gone.
func TestAuditOwnKeyManager(t *testing.T) {
	sorted := func(c *scale.Cloud) []string {
		var out []string
		for _, r := range c.Sent() {
			out = append(out, r.Method+" "+r.Path)
		}
		slices.Sort(out)
		return out
	}
	one, a1, o := auditIn(t, nil)
	two, a2, _ := auditIn(t, func(c *scale.Cloud, _ []string) {
		c.AddRegion("RegionTwo", regionTwoNova, false)
		c.Catalog = append(c.Catalog, fakecloud.Service{Type: "key-manager", Path: "/key-manager-two/", Region: "RegionTwo"})
	})
	if s1, s2 := sorted(one), sorted(two); !slices.Equal(s1, s2) {
		t.Errorf("requests differ:\n%q\n%q", s1, s2)
	}
	for _, a := range []Audited{a1, a2} {
		for _, id := range o {
			if g := orphanOf(t, a.Result, id); g.Kind != vtpmsecret.OrphanGone || g.Reason != "instance "+id+" no longer exists: it is in no project's server list" {
				t.Errorf("%s %q", g.Kind, g.Reason)
			}
		}
		if len(a.Result.Incomplete) != 0 || a.Result.Summary.Orphans != 2 {
			t.Errorf("summary %+v, incomplete %v", a.Result.Summary, a.Result.Incomplete)
		}
	}
}
