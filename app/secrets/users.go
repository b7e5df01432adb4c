package secrets

import (
	"context"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
	"github.com/vtpmctl/vtpmctl/openstack/keystone"
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
func lookupUsers(ctx context.Context, ks *gophercloud.ServiceClient, ids map[string]bool, limit int, rep *reporter) map[string]vtpmsecret.User {
	out := make(map[string]vtpmsecret.User, len(ids))
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
	found := make([]vtpmsecret.User, len(list))
	parallel.Do(ctx, len(list), limit, func(ctx context.Context, i int) error {
		defer rep.one()
		found[i] = lookupUser(ctx, ks, list[i])
		return nil
	})
	for _, u := range found {
		out[u.ID] = u
	}
	return out
}

// lookupUser reads one user: 404 is a user that no longer exists, 403 the
// caller's scope, anything else a failed read.
func lookupUser(ctx context.Context, ks *gophercloud.ServiceClient, id string) vtpmsecret.User {
	u := vtpmsecret.User{ID: id}
	if ks == nil {
		u.Unread = vtpmsecret.UnreadNoIdentity
		return u
	}
	ku, err := keystone.GetUser(ctx, ks, id)
	switch {
	case err == nil:
		u.Exists, u.Enabled, u.Name = true, ku.Enabled, ku.Name
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
	case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
		u.Unread = vtpmsecret.UnreadForbidden
	default:
		u.Unread, u.Detail = vtpmsecret.UnreadFailed, oneLine(err)
	}
	return u
}

// listUsers lists the users the caller may see, keeping only those asked
// for.
func listUsers(ctx context.Context, ks *gophercloud.ServiceClient, want map[string]bool) (map[string]vtpmsecret.User, error) {
	out := map[string]vtpmsecret.User{}
	err := keystone.ListUsers(ctx, ks, "", func(u keystone.User) {
		if want[u.ID] {
			out[u.ID] = vtpmsecret.User{ID: u.ID, Name: u.Name, Exists: true, Enabled: u.Enabled}
		}
	})
	return out, err
}

// novaNamedUsers finds Keystone users named "nova": the [service_user]
// username of every deployment tool's defaults (devstack, kolla-ansible,
// OpenStack-Helm, OpenStack-Ansible). One list call, filtered by name;
// a failed list finds none.
func novaNamedUsers(ctx context.Context, ks *gophercloud.ServiceClient) []string {
	var out []string
	_ = keystone.ListUsers(ctx, ks, "nova", func(u keystone.User) { out = append(out, u.ID) })
	return out
}

// projectRoles is, per project, the set of users with any role there
// (groups and inheritance included). For many projects one effective
// assignment list serves all (an admin's); a few, or a list refused,
// truncated or failed, one list per project. A project whose list failed
// is left out of the sets and its error is in errs.
func projectRoles(ctx context.Context, ks *gophercloud.ServiceClient, projects []string, limit int) (sets map[string]map[string]bool, errs map[string]error) {
	out := make(map[string]map[string]bool, len(projects))
	errs = map[string]error{}
	if len(projects) > projectListMin {
		if all, err := keystone.EffectiveMembers(ctx, ks, projects); err == nil {
			return all, errs
		}
	}
	got := make([]map[string]bool, len(projects))
	failed := parallel.Do(ctx, len(projects), limit, func(ctx context.Context, i int) error {
		set, err := keystone.ProjectMembers(ctx, ks, projects[i])
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
