package cloud

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// ProjectIDs resolves project names or IDs with Keystone (admin, or a
// reader of those projects).
func ProjectIDs(ctx context.Context, ks *gophercloud.ServiceClient, refs []string) ([]string, error) {
	out := make([]string, 0, len(refs))
	for _, ref := range refs {
		if p, err := projects.Get(ctx, ks, ref).Extract(); err == nil {
			out = append(out, p.ID)
			continue
		} else if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) && !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
			return nil, fmt.Errorf("project %s: %w", ref, err)
		}
		pages, err := projects.List(ks, projects.ListOpts{Name: ref}).AllPages(paging.Guard(ctx, "project list"))
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", ref, err)
		}
		ps, err := projects.ExtractProjects(pages)
		if err != nil {
			return nil, err
		}
		switch len(ps) {
		case 0:
			return nil, &ConfigError{fmt.Sprintf("no project named or with ID %q", ref)}
		case 1:
			out = append(out, ps[0].ID)
		default:
			return nil, &ConfigError{fmt.Sprintf("%d projects are named %q (in different domains); use an ID", len(ps), ref)}
		}
	}
	return out, nil
}
