package compute

import (
	"errors"

	"github.com/gophercloud/gophercloud/v2"
)

// OptionalVolumes turns Session.BlockStorage()'s answer into
// InventoryOpts.Volumes: nil, no error, when the catalog has no block
// storage (the inventory then counts volume-backed servers in
// Undecided, nova.UndecidedNoBlockStorage); any other error stays one.
//
//	vc, err := compute.OptionalVolumes(sess.BlockStorage())
func OptionalVolumes(c *gophercloud.ServiceClient, err error) (*gophercloud.ServiceClient, error) {
	var nf *gophercloud.ErrEndpointNotFound
	if err != nil && (errors.As(err, &nf) || errors.As(err, new(gophercloud.ErrEndpointNotFound))) {
		return nil, nil
	}
	return c, err
}
