package keystone

import (
	"context"
	"errors"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// User is a Keystone user as vtpmctl reads one.
type User struct {
	ID, Name string
	Enabled  bool
}

// GetUser reads one user (GET /v3/users/{id}); a user that does not
// exist is the request's 404.
func GetUser(ctx context.Context, ks *gophercloud.ServiceClient, id string) (User, error) {
	u, err := users.Get(ctx, ks, id).Extract()
	if err != nil {
		return User{}, err
	}
	return User{ID: u.ID, Name: u.Name, Enabled: u.Enabled}, nil
}

// ListUsers lists the users the caller may see (every domain's, for an
// admin on one SQL backend), those named name only when it is not "".
func ListUsers(ctx context.Context, ks *gophercloud.ServiceClient, name string, each func(User)) error {
	return users.List(ks, users.ListOpts{Name: name}).EachPage(paging.Guard(ctx, "user list"), func(_ context.Context, p pagination.Page) (bool, error) {
		us, err := users.ExtractUsers(p)
		for _, u := range us {
			each(User{ID: u.ID, Name: u.Name, Enabled: u.Enabled})
		}
		return err == nil, err
	})
}

// ErrTruncated: Keystone cut an assignment list at its list_limit and
// said so; some project's members are missing from it.
var ErrTruncated = errors.New("role assignment list truncated by the server (list_limit)")

// EffectiveMembers lists every effective role assignment once (groups
// and inheritance included) and groups the project-scoped ones by
// project, for projects only (domain and system scopes are no
// project's): each project's users with any role there. A list Keystone
// truncated is ErrTruncated.
func EffectiveMembers(ctx context.Context, ks *gophercloud.ServiceClient, projects []string) (map[string]map[string]bool, error) {
	out := make(map[string]map[string]bool, len(projects))
	for _, p := range projects {
		out[p] = map[string]bool{}
	}
	eff := true
	err := roles.ListAssignments(ks, roles.ListAssignmentsOpts{Effective: &eff}).EachPage(paging.Guard(ctx, "role assignment list"), func(_ context.Context, p pagination.Page) (bool, error) {
		var cut struct {
			Truncated bool `json:"truncated"`
		}
		if err := p.(roles.RoleAssignmentPage).ExtractInto(&cut); err != nil || cut.Truncated {
			return false, ErrTruncated
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

// ProjectMembers is the set of users with any role (groups included) in
// a project: one effective assignment list scoped to it.
func ProjectMembers(ctx context.Context, ks *gophercloud.ServiceClient, project string) (map[string]bool, error) {
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
