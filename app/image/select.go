package image

import (
	"context"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// findImages is the named images (each name one image, or the call's
// error) and those the selector selects, once each. Glance filters the
// selection, and every image it returns is matched again here: a Glance
// (or a proxy) that ignored a filter answers with every image, and a
// write to all of them is what the selector was to prevent. mismatched
// counts the images Glance returned that do not match, left out.
func findImages(ctx context.Context, c *gophercloud.ServiceClient, refs []string, selector map[string]string) (imgs []nova.CloudImage, mismatched int, err error) {
	if imgs, err = glance.ResolveImages(ctx, c, refs, nil); err != nil {
		return nil, 0, err
	}
	if len(selector) == 0 {
		return imgs, 0, nil
	}
	sel, err := glance.ListImages(ctx, c, glance.ImageListOpts{Properties: selector})
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{}
	for _, img := range imgs {
		seen[img.ID] = true
	}
	for _, img := range sel {
		switch {
		case !Selected(img, selector):
			mismatched++
		case !seen[img.ID]:
			seen[img.ID] = true
			imgs = append(imgs, img)
		}
	}
	return imgs, mismatched, nil
}

// Selected says whether img has every KEY=VALUE of the selector, as
// Glance's filter reads it: the image's own fields by their API names,
// any other key a property. A key that is neither (a Glance operator
// filter such as size_min) matches nothing: an image is written only
// where the selection is seen to hold.
func Selected(img nova.CloudImage, selector map[string]string) bool {
	for k, want := range selector {
		var got string
		var ok bool
		switch k {
		case "id":
			got, ok = img.ID, true
		case "name":
			got, ok = img.Name, true
		case "owner":
			got, ok = img.Owner, true
		case "visibility":
			got, ok = img.Visibility, true
		case "status":
			got, ok = img.Status, true
		default:
			got, ok = img.Properties[k]
		}
		if !ok || got != want {
			return false
		}
	}
	return true
}
