package secrets

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/app/inventory"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// KeyManagers gives the key manager client scoped to a project (Barbican
// lists and writes only the token's own project's secrets).
type KeyManagers func(ctx context.Context, projectID string) (*gophercloud.ServiceClient, error)

// Sources are the clients and choices of one audit.
type Sources struct {
	Compute  *gophercloud.ServiceClient // the caller's
	Image    *gophercloud.ServiceClient
	Identity *gophercloud.ServiceClient
	// Volumes is the block storage client (nil: the catalog has none):
	// the inventory decides volume-backed servers from their boot
	// volume, as Nova does, instead of leaving them undecided.
	Volumes *gophercloud.ServiceClient
	// KeyManager returns a Barbican client scoped to a project: Barbican
	// lists only the token's own project's secrets.
	KeyManager KeyManagers
	Release    nova.Release
	AllTenants bool     // list every project's servers (admin)
	Projects   []string // project IDs whose secrets are audited
	// ServerProjects, with AllTenants, narrows the server list to these
	// projects (nil: every project's).
	ServerProjects []string
	ReadACLs       bool
	// ACLInstances, when non-nil, limits the ACL reads to the secrets of
	// these instances (plan verify reads only its matched VMs'); nil: all.
	ACLInstances map[string]bool
	Limit        int // concurrent projects/lookups
	// ServiceUserID/ServiceProject: Nova's service user for deployment mode.
	ServiceUserID, ServiceProject string
	// ProjectNames (id -> name), from the caller's one project list.
	ProjectNames map[string]string
	// Inventory, when set, is the servers already listed (every project,
	// AllTenants): one server list serves several audits.
	Inventory *nova.Inventory
	// API is the key manager's microversion (barbican.DetectAPI, once per
	// run); from 1.1 the secret list carries each secret's consumers. The
	// zero value reads none.
	API vtpmsecret.API
	// Progress, when set, is told how far each phase is (one call at a
	// time, whichever goroutine finished the work).
	Progress func(Progress)
}

// Gather asks the APIs, page by page, and returns the facts to audit.
func Gather(ctx context.Context, src Sources) (vtpmsecret.Facts, error) {
	f := vtpmsecret.Facts{Release: src.Release, Audited: map[string]bool{}, NotAuditable: map[string]vtpmsecret.NotAuditable{},
		ServiceUserID: src.ServiceUserID, ServiceProject: src.ServiceProject, Users: map[string]vtpmsecret.User{}, Roles: map[string]map[string]bool{},
		ProjectNames: src.ProjectNames, API: src.API}
	rep := newReporter(src.Progress)
	// The server list (one chain of pages) runs beside the projects'
	// secrets: neither needs the other until the join below. Both ask
	// through the session's one bound on requests in flight.
	type listed struct {
		inv nova.Inventory
		err error
	}
	servers := make(chan listed, 1)
	pages := pageTicker{rep: rep}
	if src.Inventory != nil {
		servers <- listed{inv: *src.Inventory}
	} else {
		go func() {
			inv, err := inventory.List(ctx, src.Compute, src.Image, src.Release, inventory.Opts{AllTenants: src.AllTenants, Projects: src.ServerProjects, Volumes: src.Volumes, Page: pages.one})
			servers <- listed{inv, err}
		}()
	}

	src.KeyManager = onePerProject(src.KeyManager) // a token per project, for its list and its ACLs
	rep.count(PhaseSecrets, len(src.Projects))
	g := gathering{src: src, f: &f, rep: rep, pool: parallel.NewPool(ctx, src.Limit), left: len(src.Projects)}
	for _, p := range src.Projects {
		g.pool.Go(func(ctx context.Context) { g.project(ctx, p) })
	}
	g.pool.Wait()

	var got listed
	select {
	case got = <-servers:
	default: // the server list outlasts the projects: its pages from here
		pages.show()
		got = <-servers
	}
	if got.err != nil {
		return f, got.err
	}
	inv := got.inv
	f.Guests, f.OtherServers, f.Undecided, f.Unconfirmed = inv.Guests, inv.Others, inv.Undecided, inv.Unconfirmed
	f.ServerGaps = inv.ServerGaps
	f.CompleteServers = src.AllTenants && f.ServerGaps.Complete()
	if f.ProjectNames == nil {
		f.ProjectNames = map[string]string{}
	}
	for p, set := range g.roles {
		f.Roles[p] = set
	}
	for _, p := range src.Projects {
		if err := g.roleErrs[p]; err != nil && f.Audited[p] {
			f.ReadGaps.Add(gapKind(err), "the role assignments in project %s could not be read (%s skipped there): %s", p, vtpmsecret.CheckOwnerValid, oneLine(err))
		}
	}

	ids := map[string]bool{}
	for _, s := range f.Secrets.All() {
		ids[s.CreatorID] = true
	}
	// The guests Audit will audit: those a secret promotes too.
	guests := f.AuditedGuests()
	for _, g := range guests.All() {
		ids[g.UserID] = true
	}
	if f.ServiceUserID == "" && src.Identity != nil && vtpmsecret.HasDeployment(guests) {
		f.NovaNamedUsers = novaNamedUsers(ctx, src.Identity)
		for _, id := range f.NovaNamedUsers {
			ids[id] = true
		}
	}
	f.Users = lookupUsers(ctx, src.Identity, ids, src.Limit, rep)
	f.ReadGaps = append(f.ReadGaps, vtpmsecret.UnreadGaps(f)...)
	return f, nil
}

// gapKind: a refusal is the caller's scope; anything else a failure.
func gapKind(err error) completeness.Kind {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return completeness.Scope
	}
	return completeness.Failed
}

// gathering is one audit's projects in flight: each project's list, then
// a follow-up per ACL to read; the last of a project's tasks adds what
// it found to the facts. Once every project is listed, the role
// assignments of those that could be are read (one list may serve all),
// beside the ACL reads still running.
type gathering struct {
	src  Sources
	f    *vtpmsecret.Facts
	rep  *reporter
	pool *parallel.Pool

	mu       sync.Mutex
	left     int // projects not yet listed
	roles    map[string]map[string]bool
	roleErrs map[string]error
}

func (g *gathering) project(ctx context.Context, p string) {
	secs, bad, why := projectSecrets(ctx, g.src, p)
	if why != nil {
		g.mu.Lock()
		g.f.NotAuditable[p] = *why
		g.mu.Unlock()
		g.listed()
		g.rep.one()
		return
	}
	var acl []int
	for i := range secs {
		if g.src.wantsACL(secs[i]) {
			acl = append(acl, i)
		}
	}
	done := func() {
		g.mu.Lock()
		g.f.Audited[p] = true
		g.f.Secrets.Add(secs...)
		g.f.SkippedSecrets = append(g.f.SkippedSecrets, bad...)
		g.mu.Unlock()
		g.rep.one()
	}
	if len(acl) == 0 {
		done()
		g.listed()
		return
	}
	var pending atomic.Int32
	pending.Store(int32(len(acl)))
	for _, i := range acl {
		g.pool.Next(func(ctx context.Context) {
			readACL(ctx, g.src, &secs[i])
			if pending.Add(-1) == 0 {
				done()
			}
		})
	}
	g.mu.Lock()
	g.f.Audited[p] = true // listed: its roles are read (done adds the rest)
	g.mu.Unlock()
	g.listed()
}

// listed counts a project whose list is in; the last one queues the
// role assignments of the projects listed.
func (g *gathering) listed() {
	g.mu.Lock()
	g.left--
	last := g.left == 0
	var audited []string
	if last {
		for _, p := range g.src.Projects {
			if g.f.Audited[p] {
				audited = append(audited, p)
			}
		}
	}
	g.mu.Unlock()
	if !last || g.src.Identity == nil {
		return
	}
	g.pool.Next(func(ctx context.Context) {
		roles, errs := projectRoles(ctx, g.src.Identity, audited, g.src.Limit)
		g.mu.Lock()
		g.roles, g.roleErrs = roles, errs
		g.mu.Unlock()
	})
}

// pageTicker counts the server list's pages, and reports them once the
// list is all that is left to wait for (before, the projects' progress
// says how far the run is).
type pageTicker struct {
	rep   *reporter
	mu    sync.Mutex
	n     int
	shown bool
}

func (t *pageTicker) one() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	if t.shown {
		t.rep.one()
	}
}

func (t *pageTicker) show() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.shown = true
	t.rep.open(PhaseServers)
	t.rep.add(t.n)
}
