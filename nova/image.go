package nova

import (
	"context"
	"net/url"
	"sort"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// ImageListOpts adds Glance's property filters (?os_distro=windows) to
// gophercloud's list options, so selection happens on the server.
type ImageListOpts struct {
	images.ListOpts
	Properties map[string]string
}

// ToImageListQuery implements images.ListOptsBuilder.
func (o ImageListOpts) ToImageListQuery() (string, error) {
	q, err := o.ListOpts.ToImageListQuery()
	if err != nil {
		return "", err
	}
	u, err := url.Parse(q)
	if err != nil {
		return "", err
	}
	params := u.Query()
	keys := make([]string, 0, len(o.Properties))
	for k := range o.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		params.Set(k, o.Properties[k])
	}
	return (&url.URL{RawQuery: params.Encode()}).String(), nil
}

// ListImages follows every page (Glance caps a page at its api_limit_max).
func ListImages(ctx context.Context, c *gophercloud.ServiceClient, opts ImageListOpts) ([]CloudImage, error) {
	if opts.Limit == 0 {
		opts.Limit = 1000
	}
	var out []CloudImage
	err := images.List(c, opts).EachPage(paging.Guard(ctx, "image list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := images.ExtractImages(p)
		for _, img := range l {
			out = append(out, toCloudImage(img))
		}
		return true, err
	})
	return out, err
}

// UpdateImageProperties sends all writes of one image in one JSON-patch
// request: "add" for a new key, "replace" for an existing one, "remove".
func UpdateImageProperties(ctx context.Context, c *gophercloud.ServiceClient, id string, writes []Change) error {
	var patch images.UpdateOpts
	for _, w := range writes {
		op := images.ReplaceOp
		switch w.Action {
		case Added:
			op = images.AddOp
		case Removed:
			op = images.RemoveOp
		case Unchanged:
			continue
		}
		patch = append(patch, images.UpdateImageProperty{Op: op, Name: w.Key, Value: w.New})
	}
	if len(patch) == 0 {
		return nil
	}
	_, err := images.Update(ctx, c, id, patch).Extract()
	return err
}
