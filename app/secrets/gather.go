package secrets

import (
	"context"
	"net/http"
	"sync"

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
	var inv nova.Inventory
	if src.Inventory != nil {
		inv = *src.Inventory
	} else {
		rep.open(PhaseServers)
		var err error
		if inv, err = inventory.List(ctx, src.Compute, src.Image, src.Release, inventory.Opts{AllTenants: src.AllTenants, Projects: src.ServerProjects, Volumes: src.Volumes, Page: rep.one}); err != nil {
			return f, err
		}
	}
	f.Guests, f.OtherServers, f.Undecided, f.Unconfirmed = inv.Guests, inv.Others, inv.Undecided, inv.Unconfirmed
	f.ServerGaps = inv.ServerGaps
	f.CompleteServers = src.AllTenants && f.ServerGaps.Complete()
	if f.ProjectNames == nil {
		f.ProjectNames = map[string]string{}
	}

	// Every project's secrets are listed, Limit projects at a time, before
	// the first ACL is read: the ACL reads then share one pool of Limit
	// (the requests in flight, and so the connections, stay under Limit)
	// and their total is known from the first (progress that counts
	// toward a number that no longer grows).
	src.KeyManager = onePerProject(src.KeyManager) // a token per project, for its list and its ACLs
	rep.count(PhaseSecrets, len(src.Projects))
	var mu sync.Mutex
	parallel.Do(ctx, len(src.Projects), src.Limit, func(ctx context.Context, i int) error {
		defer rep.one()
		p := src.Projects[i]
		secs, bad, why := projectSecrets(ctx, src, p)
		mu.Lock()
		defer mu.Unlock()
		if why != nil {
			f.NotAuditable[p] = *why
			return nil
		}
		f.Audited[p] = true
		f.Secrets = append(f.Secrets, secs...)
		f.SkippedSecrets = append(f.SkippedSecrets, bad...)
		return nil
	})
	if src.ReadACLs {
		readACLs(ctx, src, f.Secrets, rep)
	}
	if src.Identity != nil {
		// Roles of the audited projects only; a list that failed stays out
		// of Roles and OWNER-VALID skips.
		var audited []string
		for _, p := range src.Projects {
			if f.Audited[p] {
				audited = append(audited, p)
			}
		}
		sets, errs := projectRoles(ctx, src.Identity, audited, src.Limit, rep)
		for p, set := range sets {
			f.Roles[p] = set
		}
		for _, p := range audited {
			if err := errs[p]; err != nil {
				f.ReadGaps.Add(gapKind(err), "the role assignments in project %s could not be read (%s skipped there): %s", p, vtpmsecret.CheckOwnerValid, oneLine(err))
			}
		}
	}

	ids := map[string]bool{}
	for _, s := range f.Secrets {
		ids[s.CreatorID] = true
	}
	// The guests Audit will audit: those a secret promotes too.
	guests := f.AuditedGuests()
	for _, g := range guests {
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
