package secrets

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

// TestProjectSecretsPaging: vTPM secrets among others in one project (152
// and 38 as seen live on Zed). Whichever way Barbican pages, the list is
// the vTPM secrets, each once, in ceil(n/100) requests (one for none),
// every one filtered by name.
func TestProjectSecretsPaging(t *testing.T) {
	for _, tc := range []struct{ vtpm, others, pages int }{{152, 38, 2}, {200, 3, 2}, {0, 5, 1}, {99, 300, 1}} {
		for _, old := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d+%d/old-paging=%v", tc.vtpm, tc.others, old), func(t *testing.T) {
				c := newFakeCloud(t)
				c.oldPaging = old
				c.addSecrets("p1", 1, 0, tc.vtpm, tc.others, func(int) string { return "alice" })
				src := c.sources("p1")
				src.ReadACLs = false
				secs, bad, why := projectSecrets(context.Background(), src, "p1")
				if why != nil || len(bad) != 0 {
					t.Fatal(why, bad)
				}
				seen := map[string]bool{}
				for _, s := range secs {
					if seen[s.ID] {
						t.Errorf("secret %s listed twice", s.ID)
					}
					seen[s.ID] = true
				}
				if len(secs) != tc.vtpm || len(seen) != tc.vtpm {
					t.Errorf("%d secrets (%d distinct), want %d", len(secs), len(seen), tc.vtpm)
				}
				if n := c.count("secrets"); n != tc.pages {
					t.Errorf("%d list requests, want %d", n, tc.pages)
				}
				for _, r := range c.requests() {
					u, _ := url.Parse(r)
					if u.Query().Get("name") != vtpmsecret.NamePrefix+"%" {
						t.Errorf("a page without the name filter: %s", r)
					}
				}
			})
		}
	}
}

// TestProjectSecretsCappedPages: a deployment whose max_limit_paging is
// below 100 answers shorter pages, each with a next link. The list goes
// on until no next link, never stopping at a short page (before: the
// first 50 of 152 secrets, and the other 102 guests "had no secret").
func TestProjectSecretsCappedPages(t *testing.T) {
	for _, tc := range []struct{ max, vtpm, pages int }{{50, 152, 4}, {7, 20, 3}, {50, 100, 2}, {99, 99, 1}} {
		for _, old := range []bool{true, false} {
			t.Run(fmt.Sprintf("max%d/%d/old-paging=%v", tc.max, tc.vtpm, old), func(t *testing.T) {
				c := newFakeCloud(t)
				c.maxLimit, c.oldPaging = tc.max, old
				c.addSecrets("p1", 1, 0, tc.vtpm, 13, func(int) string { return "alice" })
				src := c.sources("p1")
				src.ReadACLs = false
				secs, _, why := projectSecrets(context.Background(), src, "p1")
				if why != nil || len(secs) != tc.vtpm {
					t.Fatalf("%d secrets, want %d: %v", len(secs), tc.vtpm, why)
				}
				if n := c.count("secrets"); n != tc.pages {
					t.Errorf("%d list requests, want %d", n, tc.pages)
				}
			})
		}
	}
}

// TestProjectSecretsIgnoredOffset: a server that answers every offset with
// the first page is stopped at the second page, not asked MaxPages times.
func TestProjectSecretsIgnoredOffset(t *testing.T) {
	c := newFakeCloud(t)
	c.ignoreOffset = true
	c.addSecrets("p1", 1, 0, 150, 0, func(int) string { return "alice" })
	_, _, why := projectSecrets(context.Background(), c.sources("p1"), "p1")
	if why == nil || why.Kind != vtpmsecret.ListFailed || !strings.Contains(why.String(), "ignores offset") || c.count("secrets") != 2 {
		t.Errorf("%d requests, %v", c.count("secrets"), why)
	}
}

// TestACLInstances: ACLs are read only for the secrets of the instances
// asked for (plan verify's matched VMs); nil still reads every one.
func TestACLInstances(t *testing.T) {
	for _, c := range []struct {
		name  string
		only  map[string]bool
		reads int
	}{
		{"two of ten", map[string]bool{fakeUUID(9, 3): true, fakeUUID(9, 7): true}, 2},
		{"nil: all", nil, 10},
		{"empty: none", map[string]bool{}, 0},
	} {
		fc := newFakeCloud(t)
		fc.addSecrets("p1", 1, 0, 10, 0, func(int) string { return "alice" })
		src := fc.sources("p1")
		src.ACLInstances = c.only
		src.Identity = nil
		f, err := Gather(context.Background(), src)
		if err != nil || f.Secrets.Len() != 10 {
			t.Fatalf("%d secrets: %v", f.Secrets.Len(), err)
		}
		if n := fc.count("acl"); n != c.reads {
			t.Errorf("%s: %d ACL GETs, want %d", c.name, n, c.reads)
		}
		// Barbican's secrets, as listed and decoded, pack (64 bytes each)
		if n := f.Secrets.Whole(); n != 0 {
			t.Errorf("%s: %d of 10 secrets kept whole, none packed as Barbican lists them", c.name, n)
		}
		for _, s := range f.Secrets.All() {
			if want := c.only == nil || c.only[s.InstanceID]; (s.ProjectAccess != nil) != want {
				t.Errorf("%s: secret of %s: ACL read %v, want %v", c.name, s.InstanceID, s.ProjectAccess != nil, want)
			}
		}
	}
}

// TestLookupUsers: many users are listed once, and only those the list
// lacks (another domain, LDAP, deleted) are read one by one; a list the
// caller may not make (403) falls back to one read each. The users found
// are the same every way.
func TestLookupUsers(t *testing.T) {
	setup := func(n int) (*fakeCloud, map[string]bool, map[string]vtpmsecret.User) {
		c := newFakeCloud(t)
		ids, want := map[string]bool{}, map[string]vtpmsecret.User{}
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("u%03d", i)
			ids[id] = true
			switch {
			case i%20 == 1: // deleted
				want[id] = vtpmsecret.User{ID: id}
			case i%20 == 2: // exists, not in the list
				c.users[id], c.usersHidden[id] = fakeUser{name: "ldap-" + id, enabled: true}, true
				want[id] = vtpmsecret.User{ID: id, Name: "ldap-" + id, Exists: true, Enabled: true}
			default:
				c.users[id] = fakeUser{name: "n-" + id, enabled: i%3 == 0}
				want[id] = vtpmsecret.User{ID: id, Name: "n-" + id, Exists: true, Enabled: i%3 == 0}
			}
		}
		ids[""] = true // a guest without user_id: never looked up
		return c, ids, want
	}
	for _, tc := range []struct {
		name              string
		n, listStatus     int
		lists, singleGETs int
	}{
		{"100 users: one list", 100, 0, 1, 10},
		{"list refused (403)", 100, 403, 1, 100},
		{"list fails (500)", 100, 500, 1, 100},
		{"a handful: no list", 20, 0, 0, 20},
	} {
		c, ids, want := setup(tc.n)
		c.usersList = tc.listStatus
		got := lookupUsers(context.Background(), c.sources().Identity, ids, 4, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: users differ:\n got %v\nwant %v", tc.name, got, want)
		}
		if l, g := c.count("users"), c.count("user"); l != tc.lists || g != tc.singleGETs {
			t.Errorf("%s: %d lists + %d GETs, want %d + %d", tc.name, l, g, tc.lists, tc.singleGETs)
		}
	}
}

// TestProjectRoles: an admin auditing many projects lists role
// assignments once; a few projects, or a refused list, one per project.
// Roles are the same either way, and a project without members has an
// empty set (read), not none (unreadable).
func TestProjectRoles(t *testing.T) {
	for _, tc := range []struct {
		name             string
		projects, status int
		all, perProject  int
	}{
		{"many projects: one list", 6, 0, 1, 0},
		{"refused (403): per project", 6, 403, 1, 6},
		{"three projects: per project", 3, 0, 0, 3},
	} {
		c := newFakeCloud(t)
		c.rolesList = tc.status
		var ps []string
		want := map[string]map[string]bool{}
		for p := 0; p < tc.projects; p++ {
			pid := fmt.Sprintf("p%d", p)
			ps = append(ps, pid)
			want[pid] = map[string]bool{}
			for u := 0; u < p; u++ { // p0 has no member
				c.members[pid] = append(c.members[pid], fmt.Sprintf("user%d", u))
				want[pid][fmt.Sprintf("user%d", u)] = true
			}
		}
		c.members["not-audited"] = []string{"user9"}
		f, err := Gather(context.Background(), c.sources(ps...))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f.Roles, want) {
			t.Errorf("%s: roles\n got %v\nwant %v", tc.name, f.Roles, want)
		}
		if a, p := c.count("roles-all"), c.count("roles"); a != tc.all || p != tc.perProject {
			t.Errorf("%s: %d unscoped + %d per-project lists, want %d + %d", tc.name, a, p, tc.all, tc.perProject)
		}
	}
}

// TestKeyManager401: a project Keystone will not scope a token to is named
// for what it is, found by the error's type (not its text), and typed.
func TestKeyManager401(t *testing.T) {
	src := Sources{KeyManager: func(context.Context, string) (*gophercloud.ServiceClient, error) {
		return nil, fmt.Errorf("scoping a token to p1: %w", gophercloud.ErrUnexpectedResponseCode{Actual: 401, Method: "POST", URL: "http://keystone/v3/auth/tokens"})
	}}
	_, _, why := projectSecrets(context.Background(), src, "p1")
	if why == nil || why.Kind != vtpmsecret.TokenRefused || !strings.Contains(why.String(), "Keystone will not scope a token to it (401)") {
		t.Errorf("got %v", why)
	}
}

// TestACLReadsShareOneLimit: projects are listed Limit at a time, then
// the ACLs of all projects are read in one pool, so the requests in
// flight (and the connections a real cloud sees) stay under Limit.
// Before, each project had a pool of its own (Limit²), then a shared
// one beside the project lists (2×Limit).
func TestACLReadsShareOneLimit(t *testing.T) {
	fc := newFakeCloud(t)
	fc.aclDelay = 20 * time.Millisecond
	var ps []string
	for i := 0; i < 8; i++ {
		p := fmt.Sprintf("p%d", i)
		ps = append(ps, p)
		fc.addSecrets(p, i, 0, 12, 0, func(int) string { return "alice" })
	}
	src := fc.sources(ps...)
	src.Identity = nil
	src.Limit = 4
	if _, err := Gather(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	if n := fc.count("acl"); n != 96 {
		t.Fatalf("%d ACL reads, want 96", n)
	}
	if m := fc.Stats().MaxInFlight; m > 4 {
		t.Errorf("%d requests in flight at once, want at most Limit = 4", m)
	}
}
