package barbican

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/vtpmctl/vtpmctl/app/inventory"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

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
	KeyManager func(ctx context.Context, projectID string) (*gophercloud.ServiceClient, error)
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
	// API is the key manager's microversion (DetectAPI, once per run);
	// from 1.1 the secret list carries each secret's consumers. The zero
	// value reads none.
	API API
	// Progress, when set, is told how far each phase is (one call at a
	// time, whichever goroutine finished the work).
	Progress func(Progress)
}

// Gather asks the APIs, page by page, and returns the facts to audit.
func Gather(ctx context.Context, src Sources) (Facts, error) {
	f := Facts{Release: src.Release, Audited: map[string]bool{}, NotAuditable: map[string]string{},
		ServiceUserID: src.ServiceUserID, ServiceProject: src.ServiceProject, Users: map[string]User{}, Roles: map[string]map[string]bool{},
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
		secs, bad, err := projectSecrets(ctx, src, p)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			f.NotAuditable[p] = err.Error()
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
				f.ReadGaps.Add(gapKind(err), "the role assignments in project %s could not be read (OWNER-VALID skipped there): %s", p, oneLine(err))
			}
		}
	}

	ids := map[string]bool{}
	for _, s := range f.Secrets {
		ids[s.CreatorID] = true
	}
	// The guests Audit will audit: those a secret promotes too.
	promoted, _, _ := f.promote()
	guests := append(f.Guests[:len(f.Guests):len(f.Guests)], promoted...)
	for _, g := range guests {
		ids[g.UserID] = true
	}
	if f.ServiceUserID == "" && src.Identity != nil && hasDeployment(guests) {
		f.NovaNamedUsers = novaNamedUsers(ctx, src.Identity)
		for _, id := range f.NovaNamedUsers {
			ids[id] = true
		}
	}
	f.Users = lookupUsers(ctx, src.Identity, ids, src.Limit, rep)
	f.ReadGaps = append(f.ReadGaps, unreadGaps(f)...)
	return f, nil
}

// unreadGaps are the reads of single objects that failed: each secret's
// ACL, each user. A check they feed is skipped, and the run says why.
func unreadGaps(f Facts) completeness.Gaps {
	var gs completeness.Gaps
	for _, s := range f.Secrets {
		if s.ACLError != "" {
			kind := completeness.Failed
			if s.ACLRefused {
				kind = completeness.Scope
			}
			gs.Add(kind, "the ACL of secret %s could not be read (SECRET-ACL skipped): %s", s.ID, s.ACLError)
		}
	}
	ids := make([]string, 0, len(f.Users))
	for id := range f.Users {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		switch u := f.Users[id]; {
		case u.Unknown == "" || u.Unknown == noIdentity:
		case u.Unknown == noUserPermission:
			gs.Add(completeness.Scope, "user %s: %s", id, u.Unknown)
		default:
			gs.Add(completeness.Failed, "user %s could not be read: %s", id, u.Unknown)
		}
	}
	return gs
}

// gapKind: a refusal is the caller's scope; anything else a failure.
func gapKind(err error) completeness.Kind {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return completeness.Scope
	}
	return completeness.Failed
}

func hasDeployment(gs []Guest) bool {
	for _, g := range gs {
		if g.Mode == nova.SecretDeployment {
			return true
		}
	}
	return false
}

// novaNamedUsers finds Keystone users named "nova": the [service_user]
// username of every deployment tool's defaults (devstack, kolla-ansible,
// OpenStack-Helm, OpenStack-Ansible). One list call, filtered by name.
func novaNamedUsers(ctx context.Context, ks *gophercloud.ServiceClient) []string {
	var out []string
	_ = users.List(ks, users.ListOpts{Name: "nova"}).EachPage(paging.Guard(ctx, "user list"), func(_ context.Context, p pagination.Page) (bool, error) {
		us, err := users.ExtractUsers(p)
		for _, u := range us {
			out = append(out, u.ID)
		}
		return err == nil, err
	})
	return out
}

// ListProjects returns every project the caller may list, id -> name
// (admin): one list, its pages followed by their next links. truncated:
// Keystone cut the list at its list_limit and said so ("truncated":
// true, with no next page to ask for), so projects are missing from it.
func ListProjects(ctx context.Context, ks *gophercloud.ServiceClient) (names map[string]string, truncated bool, err error) {
	names = map[string]string{}
	ctx = paging.Guard(ctx, "project list")
	for u, n := ks.ServiceURL("projects"), 0; u != ""; n++ {
		if n >= paging.MaxPages {
			return nil, false, &paging.Error{Msg: fmt.Sprintf("project list: more than %d pages; stopped", paging.MaxPages)}
		}
		var page struct {
			Projects []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"projects"`
			Links struct {
				Next *string `json:"next"`
			} `json:"links"`
			Truncated bool `json:"truncated"`
		}
		if _, err := ks.Get(ctx, u, &page, nil); err != nil {
			return nil, false, fmt.Errorf("listing projects (needs admin): %w", err)
		}
		for _, p := range page.Projects {
			names[p.ID] = p.Name
		}
		truncated = truncated || page.Truncated
		u = ""
		if page.Links.Next != nil {
			u = *page.Links.Next
		}
	}
	return names, truncated, nil
}

// secretID is the UUID after "secrets/" in a secret_ref; anything else
// (a ref ending in /payload, a path of another shape) is not a secret's.
func secretID(ref string) (string, bool) {
	segs := strings.Split(strings.TrimRight(ref, "/"), "/")
	if n := len(segs); n >= 2 && segs[n-2] == "secrets" && IsUUID(segs[n-1]) {
		return segs[n-1], true
	}
	return "", false
}

// oneLine is err on one line, as the user reads it (cloud.ErrorText: a
// refused request as method, service, path, status and its message): its
// lines (errors.Join's parts) joined with "; ", each line's runs of white
// space one space.
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(cloud.ErrorText(err), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			parts = append(parts, strings.Join(f, " "))
		}
	}
	return strings.Join(parts, "; ")
}
