package barbican

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// Why a user could not be looked up, when it is no failure of a read.
const (
	noIdentity       = "no identity endpoint"
	noUserPermission = "no permission to read Keystone users (needs admin or reader)"
)

// Past these, one list costs less than a request per user or project.
const (
	userListMin    = 20
	projectListMin = 3
)

// lookupUsers reads each distinct user once. Many users are listed in one
// request; those the list lacks (another domain's driver, LDAP, deleted)
// and every user when the list fails (403 for a non-admin) are read one
// by one, so the answer is the same either way.
func lookupUsers(ctx context.Context, ks *gophercloud.ServiceClient, ids map[string]bool, limit int, rep *reporter) map[string]User {
	out := make(map[string]User, len(ids))
	list := make([]string, 0, len(ids))
	for id := range ids {
		if id != "" {
			list = append(list, id)
		}
	}
	rep.count(PhaseUsers, len(list))
	if ks != nil && len(list) > userListMin {
		if listed, err := listUsers(ctx, ks, ids); err == nil {
			rest := list[:0]
			for _, id := range list {
				if u, ok := listed[id]; ok {
					out[id] = u
				} else {
					rest = append(rest, id)
				}
			}
			rep.add(len(list) - len(rest))
			list = rest
		}
	}
	found := make([]User, len(list))
	parallel.Do(ctx, len(list), limit, func(ctx context.Context, i int) error {
		defer rep.one()
		u := User{ID: list[i]}
		switch {
		case ks == nil:
			u.Unknown = noIdentity
		default:
			ku, err := users.Get(ctx, ks, list[i]).Extract()
			switch {
			case err == nil:
				u.Exists, u.Enabled, u.Name = true, ku.Enabled, ku.Name
			case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
				u.Unknown = noUserPermission
			default:
				u.Unknown = oneLine(err)
			}
		}
		found[i] = u
		return nil
	})
	for _, u := range found {
		out[u.ID] = u
	}
	return out
}

// listUsers lists the users the caller may see (every domain's, for an
// admin on one SQL backend), keeping only those asked for.
func listUsers(ctx context.Context, ks *gophercloud.ServiceClient, want map[string]bool) (map[string]User, error) {
	out := map[string]User{}
	err := users.List(ks, nil).EachPage(paging.Guard(ctx, "user list"), func(_ context.Context, p pagination.Page) (bool, error) {
		us, err := users.ExtractUsers(p)
		for _, u := range us {
			if want[u.ID] {
				out[u.ID] = User{ID: u.ID, Name: u.Name, Exists: true, Enabled: u.Enabled}
			}
		}
		return err == nil, err
	})
	return out, err
}

// projectRoles is, per project, the set of users with any role there
// (groups and inheritance included). For many projects one effective
// assignment list serves all (an admin's); a few, or a list refused,
// truncated or failed, one list per project. A project whose list failed
// is left out of the sets and its error is in errs.
func projectRoles(ctx context.Context, ks *gophercloud.ServiceClient, projects []string, limit int, rep *reporter) (sets map[string]map[string]bool, errs map[string]error) {
	out := make(map[string]map[string]bool, len(projects))
	errs = map[string]error{}
	rep.count(PhaseRoles, len(projects))
	if len(projects) > projectListMin {
		if all, err := allMembers(ctx, ks, projects); err == nil {
			rep.add(len(projects))
			return all, errs
		}
	}
	got := make([]map[string]bool, len(projects))
	failed := parallel.Do(ctx, len(projects), limit, func(ctx context.Context, i int) error {
		defer rep.one()
		set, err := projectMembers(ctx, ks, projects[i])
		got[i] = set
		return err
	})
	for i, p := range projects {
		if failed[i] == nil && got[i] != nil {
			out[p] = got[i]
		} else if failed[i] != nil {
			errs[p] = failed[i]
		}
	}
	return out, errs
}

// allMembers lists every effective assignment once and groups the
// project-scoped ones (domain and system scopes are no project's).
func allMembers(ctx context.Context, ks *gophercloud.ServiceClient, projects []string) (map[string]map[string]bool, error) {
	out := make(map[string]map[string]bool, len(projects))
	for _, p := range projects {
		out[p] = map[string]bool{}
	}
	eff := true
	err := roles.ListAssignments(ks, roles.ListAssignmentsOpts{Effective: &eff}).EachPage(paging.Guard(ctx, "role assignment list"), func(_ context.Context, p pagination.Page) (bool, error) {
		// Keystone's list_limit cuts a list short and says so: then some
		// project's members are missing, and per-project lists must do.
		var cut struct {
			Truncated bool `json:"truncated"`
		}
		if err := p.(roles.RoleAssignmentPage).ExtractInto(&cut); err != nil || cut.Truncated {
			return false, fmt.Errorf("role assignment list truncated by the server (list_limit)")
		}
		l, err := roles.ExtractRoleAssignments(p)
		for _, a := range l {
			if set, ok := out[a.Scope.Project.ID]; ok && a.Scope.Project.ID != "" {
				set[a.User.ID] = true
			}
		}
		return true, err
	})
	return out, err
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
