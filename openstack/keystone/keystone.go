package keystone

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

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
// Each page is decoded into the three fields read, once: Keystone sends
// a cloud's whole user list as one page, which gophercloud's pager
// decoded twice (into maps, then into users with their other keys kept),
// 60 MB for a moment at 500,000 guests. Next links are followed as the
// pager follows them, under the same guard.
func ListUsers(ctx context.Context, ks *gophercloud.ServiceClient, name string, each func(User)) error {
	first := ks.ServiceURL("users")
	if name != "" {
		first += "?" + url.Values{"name": {name}}.Encode()
	}
	return eachPage(ctx, ks, "user list", first, func(p *struct {
		Users []struct {
			ID      string `json:"id"`
			Name    string `json:"name"`
			Enabled bool   `json:"enabled"`
		} `json:"users"`
		Links links `json:"links"`
	}) (*string, error) {
		for _, u := range p.Users {
			each(User{ID: u.ID, Name: u.Name, Enabled: u.Enabled})
		}
		return p.Links.after(len(p.Users)), nil
	})
}

// links is a Keystone list page's; next is null on the last page.
type links struct {
	Next *string `json:"next"`
}

// after is the page to ask for after one of n elements: none after an
// empty page, as gophercloud's pager stops there.
func (l links) after(n int) *string {
	if n == 0 {
		return nil
	}
	return l.Next
}

// eachPage GETs first, then each page's next link, under one guard (no
// link off the endpoint's host, no page twice, at most paging.MaxPages),
// decoding each page once into a fresh P: what is read of it, not the
// maps and extra keys gophercloud's pager decodes a page into before its
// Extract decodes it again. do returns the next link (nil: done).
func eachPage[P any](ctx context.Context, ks *gophercloud.ServiceClient, what, first string, do func(*P) (*string, error)) error {
	ctx = paging.Guard(ctx, what)
	for u := first; u != ""; {
		var page P
		if _, err := ks.Get(ctx, u, &page, nil); err != nil {
			return err
		}
		next, err := do(&page)
		if err != nil || next == nil {
			return err
		}
		u = *next
	}
	return nil
}

// assignments is a role assignment list's page, as the audit reads it.
type assignments struct {
	RoleAssignments []struct {
		Scope struct {
			Project struct {
				ID string `json:"id"`
			} `json:"project"`
		} `json:"scope"`
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"role_assignments"`
	Links     links `json:"links"`
	Truncated bool  `json:"truncated"`
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
	// one page of every assignment in the cloud: 110 MB for a moment at
	// 500,000 guests through gophercloud's pager, a few MB this way
	err := eachPage(ctx, ks, "role assignment list", ks.ServiceURL("role_assignments")+"?effective=true", func(p *assignments) (*string, error) {
		if p.Truncated {
			return nil, ErrTruncated
		}
		for _, a := range p.RoleAssignments {
			if set, ok := out[a.Scope.Project.ID]; ok && a.Scope.Project.ID != "" {
				set[a.User.ID] = true
			}
		}
		return p.Links.after(len(p.RoleAssignments)), nil
	})
	return out, err
}

// ProjectMembers is the set of users with any role (groups included) in
// a project: one effective assignment list scoped to it. A list Keystone
// truncated is ErrTruncated (no set: a missing user proves nothing).
func ProjectMembers(ctx context.Context, ks *gophercloud.ServiceClient, project string) (map[string]bool, error) {
	out := map[string]bool{}
	q := url.Values{"effective": {"true"}}
	if project != "" { // as gophercloud's query leaves an empty filter out
		q.Set("scope.project.id", project)
	}
	err := eachPage(ctx, ks, "role assignment list", ks.ServiceURL("role_assignments")+"?"+q.Encode(), func(p *assignments) (*string, error) {
		// a list cut at list_limit cannot say a user has no role here
		if p.Truncated {
			return nil, ErrTruncated
		}
		for _, a := range p.RoleAssignments {
			out[a.User.ID] = true
		}
		return p.Links.after(len(p.RoleAssignments)), nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
