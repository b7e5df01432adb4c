package barbican

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// The audit's defaults: the flags' defaults and every other caller's
// (report, plan verify), so all of them audit alike.
const (
	DefaultConcurrency    = 8
	DefaultServiceProject = "service"
)

// Flags are the caller's spellings of what the audit may tell a user to
// give; an empty one is a flag the caller does not have, and the text
// then says what is missing without naming a flag.
type Flags struct {
	ServiceUser    string // e.g. "--nova-service-user"
	ServiceProject string // e.g. "--nova-service-project"
	Scope          string // e.g. "--all-projects or --project"
}

// AuditRequest is one secrets audit (or the gathering secrets protect
// plans from).
type AuditRequest struct {
	// Release is the evidence the caller has (its flag and the flag's
	// name); the cloud's compute API is asked when it is not pinned.
	Release nova.ReleaseEvidence
	// Resolved, when set, is the release the caller already settled (and
	// listed Inventory with): no second detection.
	Resolved *nova.ResolvedRelease
	// Projects (names or IDs) to audit; none and not AllProjects: the
	// token's own project.
	Projects    []string
	AllProjects bool
	// ServiceProject (name or ID) holds deployment-mode secrets (empty:
	// DefaultServiceProject); ServiceUser (an ID) owns them, when the
	// caller knows it.
	ServiceProject string
	ServiceUser    string
	Concurrency    int // projects and lookups at once; < 1: DefaultConcurrency
	ReadACLs       bool
	// ACLInstances, when non-nil, limits ACL reads to these servers'
	// secrets (plan verify: the matched guests only).
	ACLInstances map[string]bool
	// Inventory, when set, is every project's servers already listed
	// (one server list for several audits).
	Inventory *nova.Inventory
	// NeedConsumers: a key manager without consumers is an error before
	// anything else is asked (secrets protect).
	NeedConsumers bool
	Flags         Flags
	// Progress, when set, is told how far each phase of the gathering is
	// (requests done of those known), one call at a time; the caller
	// draws it (the service knows no terminal).
	Progress func(Progress)
}

// Audited is what AuditSecrets found: the result, the facts it came
// from, and what a caller needs to act on it.
type Audited struct {
	Result Result
	Facts  Facts
	// Release is how the release was settled; the command prints its
	// warning (the service knows no terminal).
	Release nova.ResolvedRelease `json:"-"`
	Cloud   string
	// SecretsURL is the key manager's own secrets endpoint, ending in /.
	SecretsURL string
	// KeyManager gives the client scoped to a project, the one the audit
	// used (protect writes with the same tokens).
	KeyManager func(ctx context.Context, projectID string) (*gophercloud.ServiceClient, error) `json:"-"`
}

// ScopeError: the audit's scope cannot be set up (every project needs
// Keystone's project list, which needs the admin role). The command
// names its flag.
type ScopeError struct{ Err error }

func (e *ScopeError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return "auditing every project needs to list Keystone projects, which needs the admin role"
}

func (e *ScopeError) Unwrap() error { return e.Err }

// ProjectRefError: a project named in the request is not one project.
type ProjectRefError struct {
	Ref     string
	Matches int
}

func (e *ProjectRefError) Error() string {
	if e.Matches == 0 {
		return fmt.Sprintf("no project named or with ID %q", e.Ref)
	}
	return fmt.Sprintf("%d projects are named %q; use an ID", e.Matches, e.Ref)
}

// ConsumersUnavailableError: NeedConsumers, and the key manager has none.
type ConsumersUnavailableError struct{ API API }

func (e *ConsumersUnavailableError) Error() string { return ConsumersUnavailable(e.API) }

// AuditSecrets settles the release, reads the key manager's API once,
// resolves the projects, gathers and audits. Progress goes to
// req.Progress or, without it, to whatever parallel.WithProgress the
// caller put on ctx (one tick per project, per ACL, per user).
func AuditSecrets(ctx context.Context, sess *cloud.Session, req AuditRequest) (Audited, error) {
	if req.Progress != nil {
		ctx = parallel.WithProgress(ctx, nil) // one progress, not two
	}
	out := Audited{Cloud: sess.CloudName}
	computeClient, err := sess.Compute()
	if err != nil {
		return out, err
	}
	if req.Resolved != nil {
		out.Release = *req.Resolved
	} else if out.Release, err = compute.ResolveRelease(ctx, computeClient, req.Release, false); err != nil {
		return out, err
	}
	var imageClient, volumeClient *gophercloud.ServiceClient
	if req.Inventory == nil {
		if imageClient, err = sess.Image(); err != nil {
			return out, err
		}
		if volumeClient, err = compute.OptionalVolumes(sess.BlockStorage()); err != nil {
			return out, err
		}
	}
	km, err := sess.KeyManager()
	if err != nil {
		return out, err
	}
	api, apiErr := DetectAPI(ctx, km)
	switch {
	case req.NeedConsumers && apiErr != nil:
		return out, apiErr
	case req.NeedConsumers && !api.HasConsumers():
		return out, &ConsumersUnavailableError{API: api}
	}
	sc, err := resolveScope(ctx, sess, req)
	if err != nil {
		return out, err
	}
	own, ks, names, projects := sc.own, sc.ks, sc.names, sc.projects
	allTenants := req.Inventory != nil || sc.admin && (req.AllProjects || len(projects) > 1 || projects[0] != own)
	// Projects named by an admin: Nova lists those projects' servers
	// only, not every project's (2,000 guests for the 100 asked about).
	var serverProjects []string
	if allTenants && req.Inventory == nil && !req.AllProjects {
		serverProjects = projects
	}
	limit := req.Concurrency
	if limit < 1 {
		limit = DefaultConcurrency
	}
	src := Sources{Compute: computeClient, Image: imageClient, Volumes: volumeClient, Identity: ks, Release: out.Release.Release, AllTenants: allTenants,
		Projects: projects, ServerProjects: serverProjects, ReadACLs: req.ReadACLs, ACLInstances: req.ACLInstances, API: api, Limit: limit,
		ServiceUserID: req.ServiceUser, ServiceProject: sc.service, ProjectNames: names, Inventory: req.Inventory,
		KeyManager: projectKeyManagers(sess, km, own), Progress: req.Progress}
	facts, err := Gather(ctx, src)
	if err != nil {
		return out, err
	}
	facts.Flags = req.Flags
	// The token's own project's servers are not every server a secret
	// there can belong to (a deployment-mode secret lives in Nova's
	// service project, its guest elsewhere): the inventory's scope gap
	// keeps CompleteServers false.
	facts.ProjectGaps = sc.gaps
	out.Facts, out.KeyManager = facts, src.KeyManager
	out.SecretsURL = strings.TrimRight(km.ResourceBaseURL(), "/") + "/secrets/"
	out.Result = Audit(facts, time.Now())
	// Projects named by an admin: their server lists cannot prove an
	// instance gone (its server may be another project's), but Nova can,
	// asked by UUID about those instances only, as the cleanup plan asks.
	if ids := undeterminedInstances(out.Result); len(ids) > 0 && serverProjects != nil && sc.admin {
		SettleUndetermined(&out.Result, compute.ProveGone(ctx, computeClient, ids, true, limit))
	}
	if apiErr != nil {
		out.Result.ConsumersNotRead = apiErr.Error()
	}
	if out.Release.Ambiguous() {
		out.Result.ReleaseContext = out.Release.Context()
	}
	return out, nil
}

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
		sc.names, truncated, namesErr = ListProjects(ctx, sc.ks)
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
func projectKeyManagers(sess *cloud.Session, km *gophercloud.ServiceClient, own string) func(context.Context, string) (*gophercloud.ServiceClient, error) {
	return onePerProject(func(ctx context.Context, project string) (*gophercloud.ServiceClient, error) {
		if project == own {
			return km, nil
		}
		s, err := sess.ForProject(ctx, project)
		if err != nil {
			return nil, err
		}
		c := *km
		c.ProviderClient = s.Provider
		return &c, nil
	})
}

// onePerProject remembers each project's client (or its error): protect
// writes with the tokens the audit got, not a second token per project.
func onePerProject(f func(context.Context, string) (*gophercloud.ServiceClient, error)) func(context.Context, string) (*gophercloud.ServiceClient, error) {
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
