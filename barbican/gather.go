package barbican

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/acls"
	"github.com/gophercloud/gophercloud/v2/openstack/keymanager/v1/secrets"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/compute"
	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
	"github.com/vtpmctl/vtpmctl/nova"
)

// Sources are the clients and choices of one audit.
type Sources struct {
	Compute  *gophercloud.ServiceClient // the caller's
	Image    *gophercloud.ServiceClient
	Identity *gophercloud.ServiceClient
	// KeyManager returns a Barbican client scoped to a project: Barbican
	// lists only the token's own project's secrets.
	KeyManager func(ctx context.Context, projectID string) (*gophercloud.ServiceClient, error)
	Release    nova.Release
	AllTenants bool     // list every project's servers (admin)
	Projects   []string // project IDs whose secrets are audited
	ReadACLs   bool
	Limit      int // concurrent projects/lookups
	// ServiceUserID/ServiceProject: Nova's service user for deployment mode.
	ServiceUserID, ServiceProject string
	// ProjectNames (id -> name), from the caller's one project list.
	ProjectNames map[string]string
	// Inventory, when set, is the servers already listed (every project,
	// AllTenants): one server list serves several audits.
	Inventory *nova.Inventory
}

// Gather asks the APIs, page by page, and returns the facts to audit.
func Gather(ctx context.Context, src Sources) (Facts, error) {
	f := Facts{Release: src.Release, Audited: map[string]bool{}, NotAuditable: map[string]string{}, CompleteServers: src.AllTenants,
		ServiceUserID: src.ServiceUserID, ServiceProject: src.ServiceProject, Users: map[string]User{}, Roles: map[string]map[string]bool{},
		ProjectNames: src.ProjectNames}
	var inv nova.Inventory
	if src.Inventory != nil {
		inv = *src.Inventory
	} else {
		var err error
		if inv, err = compute.ListVTPMGuests(ctx, src.Compute, src.Image, src.Release, src.AllTenants); err != nil {
			return f, err
		}
	}
	f.Guests, f.OtherServers = inv.Guests, inv.Others
	if f.ProjectNames == nil {
		f.ProjectNames = map[string]string{}
	}

	var mu sync.Mutex
	parallel.Do(ctx, len(src.Projects), src.Limit, func(ctx context.Context, i int) error {
		p := src.Projects[i]
		secs, bad, err := projectSecrets(ctx, src, p)
		var roleSet map[string]bool
		if err == nil && src.Identity != nil {
			var rerr error
			// A list that failed (403 for a non-admin, a 5xx) is not "no
			// roles": the project stays out of Roles and OWNER-VALID skips.
			if roleSet, rerr = projectMembers(ctx, src.Identity, p); rerr != nil {
				roleSet = nil
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			f.NotAuditable[p] = err.Error()
			return nil
		}
		f.Audited[p] = true
		f.Secrets = append(f.Secrets, secs...)
		f.SkippedSecrets = append(f.SkippedSecrets, bad...)
		if roleSet != nil {
			f.Roles[p] = roleSet
		}
		return nil
	})

	ids := map[string]bool{}
	for _, s := range f.Secrets {
		ids[s.CreatorID] = true
	}
	for _, g := range f.Guests {
		ids[g.UserID] = true
	}
	if f.ServiceUserID == "" && src.Identity != nil && hasDeployment(f.Guests) {
		f.NovaNamedUsers = novaNamedUsers(ctx, src.Identity)
		for _, id := range f.NovaNamedUsers {
			ids[id] = true
		}
	}
	f.Users = lookupUsers(ctx, src.Identity, ids, src.Limit)
	return f, nil
}

func hasDeployment(gs []Guest) bool {
	for _, g := range gs {
		if g.Mode == "deployment" {
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

// projectSecrets lists a project's vTPM secrets, 100 a page, by name.
func projectSecrets(ctx context.Context, src Sources, project string) ([]Secret, []string, error) {
	km, err := src.KeyManager(ctx, project)
	if err != nil {
		if strings.Contains(err.Error(), "HTTP 401") {
			return nil, nil, fmt.Errorf("Keystone will not scope a token to it (401): the caller has no role in the project")
		}
		return nil, nil, fmt.Errorf("cannot get a token for the project: %v", oneLine(err))
	}
	var out []Secret
	var bad []string
	err = secrets.List(km, secrets.ListOpts{Name: NamePrefix + "%", Limit: 100}).EachPage(paging.Guard(ctx, "secret list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := secrets.ExtractSecrets(p)
		for _, s := range l {
			inst, ok := InstanceOf(s.Name)
			if !ok {
				continue // LIKE's _ matches any character; keep exact names only
			}
			id, ok := secretID(s.SecretRef)
			if !ok {
				// a secret_ref that is no secret's URL (…/payload, another
				// host): named, never requested, and the project still audited
				bad = append(bad, fmt.Sprintf("secret %q has a secret_ref that is not a secret's URL (%s): not audited", s.Name, s.SecretRef))
				continue
			}
			sec := Secret{ID: id, Ref: s.SecretRef, InstanceID: inst, ProjectID: project, CreatorID: s.CreatorID,
				Type: s.SecretType, Status: s.Status, Created: s.Created}
			if !s.Expiration.IsZero() {
				e := s.Expiration
				sec.Expiration = &e
			}
			out = append(out, sec)
		}
		return true, err
	})
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return nil, nil, fmt.Errorf("Barbican refuses to list its secrets (403): the caller needs a role there that may list secrets (admin, creator or observer under Barbican's default policy before 2026.1; reader or member from 2026.1)")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing secrets: %v", oneLine(err))
	}
	if src.ReadACLs {
		// A failed read (after the transport's retries) is this secret's
		// problem, reported on it; the rest of the project is audited.
		parallel.Do(ctx, len(out), src.Limit, func(ctx context.Context, i int) error {
			acl, err := acls.GetSecretACL(ctx, km, out[i].ID).Extract()
			if err != nil {
				out[i].ACLError = oneLine(err)
				return nil
			}
			pa := true // no ACL row: Barbican forces project access on
			if r, ok := (*acl)["read"]; ok {
				pa = r.ProjectAccess
			}
			out[i].ProjectAccess = &pa
			return nil
		})
	}
	return out, bad, nil
}

// lookupUsers reads each distinct user once.
func lookupUsers(ctx context.Context, ks *gophercloud.ServiceClient, ids map[string]bool, limit int) map[string]User {
	list := make([]string, 0, len(ids))
	for id := range ids {
		if id != "" {
			list = append(list, id)
		}
	}
	found := make([]User, len(list))
	parallel.Do(ctx, len(list), limit, func(ctx context.Context, i int) error {
		u := User{ID: list[i]}
		switch {
		case ks == nil:
			u.Unknown = "no identity endpoint"
		default:
			ku, err := users.Get(ctx, ks, list[i]).Extract()
			switch {
			case err == nil:
				u.Exists, u.Enabled, u.Name = true, ku.Enabled, ku.Name
			case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
				u.Unknown = "no permission to read Keystone users (needs admin or reader)"
			default:
				u.Unknown = oneLine(err)
			}
		}
		found[i] = u
		return nil
	})
	out := make(map[string]User, len(found))
	for _, u := range found {
		out[u.ID] = u
	}
	return out
}

// projectMembers is the set of users with any role (groups included) in a
// project: one request per project, not one per user.
func projectMembers(ctx context.Context, ks *gophercloud.ServiceClient, project string) (map[string]bool, error) {
	eff := true
	out := map[string]bool{}
	err := roles.ListAssignments(ks, roles.ListAssignmentsOpts{ScopeProjectID: project, Effective: &eff}).EachPage(paging.Guard(ctx, "role assignment list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := roles.ExtractRoleAssignments(p)
		for _, a := range l {
			out[a.User.ID] = true
		}
		return true, err
	})
	return out, err
}

// ListProjects returns every project, id -> name (admin): one list.
func ListProjects(ctx context.Context, ks *gophercloud.ServiceClient) (map[string]string, error) {
	pages, err := projects.List(ks, projects.ListOpts{}).AllPages(paging.Guard(ctx, "project list"))
	if err != nil {
		return nil, fmt.Errorf("listing projects (needs admin): %w", err)
	}
	ps, err := projects.ExtractProjects(pages)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ps))
	for _, p := range ps {
		out[p.ID] = p.Name
	}
	return out, nil
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

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
