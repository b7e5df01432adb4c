package inventory

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// ListIDs lists the IDs of every project's servers of one Nova (another
// region's, which may hold the instances of a key manager's secrets),
// once, page by page as List pages, and keeps nothing else. It asks at
// 2.69, where a down cell's servers are partial records, or 2.47 where
// Nova refuses that (406). gaps say why the list cannot prove a server
// absent (below 2.69, a cell down: serverListGaps' words); err, that it
// could not be read to the end (the IDs read before it are still
// servers that exist).
func ListIDs(ctx context.Context, c *gophercloud.ServiceClient) (ids nova.ServerIDs, gaps completeness.Gaps, err error) {
	pages, partial := 0, 0
	mv, err := downTheLadder([]string{compute.ServerCellDownMicroversion, compute.ServerMicroversion}, func(mv string) (int, error) {
		err := compute.EachServerIDPage(ctx, c, compute.ServerQuery{Microversion: mv, AllTenants: true}, func(l []compute.ServerRef) {
			pages++
			for _, s := range l {
				ids.Add(s.ID)
				if s.Partial() {
					partial++
				}
			}
		})
		return pages, err
	})
	if err != nil {
		return ids, nil, fmt.Errorf("listing servers: %w", err)
	}
	return ids, serverListGaps(nova.Inventory{ServerMicroversion: mv, PartialServers: partial}, true, nil), nil
}
