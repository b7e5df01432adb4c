package secrets

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/openstack/keystone"
)

// scope is who the token is and which projects the audit reads.
type scope struct {
	own      string // the token's project
	admin    bool
	ks       *gophercloud.ServiceClient // nil: no Keystone (owners and roles skipped, not fatal)
	names    map[string]string          // project ID → name (admin only)
	projects []string
	// gaps: why projects may be missing (a truncated project list; the
	// token's own project standing for a question about every project).
	gaps completeness.Gaps
	// service is the ID of Nova's service project ("" when unknown).
	service string
}

// resolveScope: one project list serves names, AllProjects and the
// service project; named projects are resolved by ID or name.
func resolveScope(ctx context.Context, sess *cloud.Session, req AuditRequest) (scope, error) {
	var sc scope
	var err error
	if sc.own, sc.admin, err = sess.TokenProject(); err != nil {
		return sc, err
	}
	if sc.ks, err = sess.Identity(); err != nil {
		sc.ks = nil
	}
	var namesErr error
	truncated := false
	if sc.ks != nil && sc.admin {
		sc.names, truncated, namesErr = keystone.ListProjects(ctx, sc.ks)
	}
	sc.projects = []string{sc.own}
	// A truncated list names too few projects: names are looked up in it
	// only where it has them, and the rest asked of Keystone one by one.
	lookup := sc.names
	if truncated {
		lookup = nil
	}
	switch {
	case req.AllProjects:
		if namesErr != nil {
			return sc, &ScopeError{Err: namesErr}
		}
		if sc.names == nil {
			return sc, &ScopeError{}
		}
		sc.projects = sc.projects[:0]
		for id := range sc.names {
			sc.projects = append(sc.projects, id)
		}
		sort.Strings(sc.projects)
		if truncated {
			sc.gaps.Add(completeness.Truncated, "Keystone truncated its project list at %d project(s) (its list_limit): the projects beyond it were not audited", len(sc.names))
		}
	case len(req.Projects) > 0:
		if sc.projects, err = resolveProjectRefs(ctx, sc.ks, lookup, req.Projects); err != nil {
			return sc, err
		}
	}
	sc.service = serviceProjectID(sc.names, req.ServiceProject)
	if sc.service == "" && truncated {
		want := req.ServiceProject
		if want == "" {
			want = DefaultServiceProject
		}
		if ids, err := cloud.ProjectIDs(ctx, sc.ks, []string{want}); err == nil {
			sc.service = ids[0]
		}
	}
	return sc, nil
}

// serviceProjectID is the ID of the project named or numbered want
// (DefaultServiceProject when empty), "" when the names do not have it.
func serviceProjectID(names map[string]string, want string) string {
	if want == "" {
		want = DefaultServiceProject
	}
	id := ""
	for i, n := range names {
		if n == want || i == want {
			id = i
		}
	}
	return id
}

// projectKeyManagers gives each project's key manager client: the
// token's own, or the same endpoint with a token scoped to the project
// (no catalog lookup or discovery per project), each made once.
func projectKeyManagers(sess *cloud.Session, km *gophercloud.ServiceClient, own string) KeyManagers {
	return onePerProject(func(ctx context.Context, project string) (*gophercloud.ServiceClient, error) {
		if project == own {
			return km, nil
		}
		s, err := sess.ForProject(ctx, project)
		if err != nil {
			return nil, err
		}
		// the key manager's endpoint is the session's: of the project's
		// authentication only the token is used
		cloud.KeepTokenOnly(s.Provider)
		c := *km
		c.ProviderClient = s.Provider
		return &c, nil
	})
}

// onePerProject remembers each project's client (or its error): protect
// writes with the tokens the audit got, not a second token per project.
func onePerProject(f KeyManagers) KeyManagers {
	type entry struct {
		once sync.Once
		c    *gophercloud.ServiceClient
		err  error
	}
	var mu sync.Mutex
	m := map[string]*entry{}
	return func(ctx context.Context, p string) (*gophercloud.ServiceClient, error) {
		mu.Lock()
		e := m[p]
		if e == nil {
			e = &entry{}
			m[p] = e
		}
		mu.Unlock()
		e.once.Do(func() { e.c, e.err = f(ctx, p) })
		return e.c, e.err
	}
}

// resolveProjectRefs maps names or IDs to IDs, locally when the project
// list is at hand.
func resolveProjectRefs(ctx context.Context, ks *gophercloud.ServiceClient, names map[string]string, refs []string) ([]string, error) {
	if names == nil {
		if ks == nil {
			return nil, fmt.Errorf("naming projects needs Keystone, and the cloud's catalog has none")
		}
		return cloud.ProjectIDs(ctx, ks, refs)
	}
	var out []string
	for _, ref := range refs {
		var match []string
		for id, n := range names {
			if id == ref || n == ref {
				match = append(match, id)
			}
		}
		if len(match) != 1 {
			return nil, &ProjectRefError{Ref: ref, Matches: len(match)}
		}
		out = append(out, match[0])
	}
	return out, nil
}
