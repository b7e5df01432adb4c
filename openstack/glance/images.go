package glance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
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
func ListImages(ctx context.Context, c *gophercloud.ServiceClient, opts ImageListOpts) ([]nova.CloudImage, error) {
	if opts.Limit == 0 {
		opts.Limit = 1000
	}
	var out []nova.CloudImage
	err := images.List(c, opts).EachPage(paging.Guard(ctx, "image list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := images.ExtractImages(p)
		for _, img := range l {
			out = append(out, toCloudImage(img))
		}
		return true, err
	})
	return out, err
}

// propertyPatch is one JSON-patch operation on an image property.
// gophercloud's UpdateImageProperty puts the key in the path raw, so a
// key "tags/-" would append to the image's tags.
type propertyPatch struct {
	op    images.UpdateOp
	key   string
	value string
}

func (p propertyPatch) ToImagePatchMap() map[string]any {
	m := map[string]any{"op": p.op, "path": "/" + pointerSegment(p.key)}
	if p.op != images.RemoveOp {
		m["value"] = p.value
	}
	return m
}

// UpdateImageProperties sends all writes of one image in one JSON-patch
// request: "add" for a new key, "replace" for an existing one, "remove".
// Each key is one escaped pointer segment; a core attribute is refused
// (nova.ReservedImageProperty) before anything is sent.
func UpdateImageProperties(ctx context.Context, c *gophercloud.ServiceClient, id string, writes []nova.Change) error {
	var patch images.UpdateOpts
	for _, w := range writes {
		op := images.ReplaceOp
		switch w.Action {
		case nova.Added:
			op = images.AddOp
		case nova.Removed:
			op = images.RemoveOp
		case nova.Unchanged:
			continue
		}
		if why := nova.ReservedImageProperty(w.Key); why != "" {
			return fmt.Errorf("image %s: %q is %s; not written", id, w.Key, why)
		}
		patch = append(patch, propertyPatch{op: op, key: w.Key, value: w.New})
	}
	if len(patch) == 0 {
		return nil
	}
	_, err := images.Update(ctx, c, id, patch).Extract()
	return err
}

// FindImage resolves a Glance image by ID, then by name.
func FindImage(ctx context.Context, c *gophercloud.ServiceClient, ref string) (nova.CloudImage, error) {
	if uuidRE.MatchString(ref) {
		img, err := images.Get(ctx, c, ref).Extract()
		if err == nil {
			return toCloudImage(*img), nil
		}
		if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return nova.CloudImage{}, err
		}
	}
	// Glance reads "in:win" in a name filter as its in operator (and any
	// "x:" as an operator), so the name goes behind an explicit eq:, and
	// only an exact match of the returned names counts.
	var found []images.Image
	err := images.List(c, images.ListOpts{Name: "eq:" + ref, Limit: 100}).EachPage(paging.Guard(ctx, "image list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := images.ExtractImages(p)
		for _, img := range l {
			if img.Name == ref {
				found = append(found, img)
			}
		}
		return true, err
	})
	if err != nil {
		return nova.CloudImage{}, err
	}
	switch len(found) {
	case 0:
		return nova.CloudImage{}, &nova.NotFoundError{Kind: "image", Ref: ref}
	case 1:
		return toCloudImage(found[0]), nil
	}
	ids := make([]string, len(found))
	for i, f := range found {
		ids[i] = f.ID
	}
	sort.Strings(ids)
	return nova.CloudImage{}, &nova.AmbiguousError{Kind: "image", Ref: ref, IDs: ids}
}

func toCloudImage(img images.Image) nova.CloudImage {
	props := make(map[string]string, len(img.Properties))
	for k, v := range img.Properties {
		switch x := v.(type) {
		case string:
			props[k] = x
		case nil:
		default:
			props[k] = fmt.Sprint(x)
		}
	}
	return nova.CloudImage{ID: img.ID, Owner: img.Owner, Visibility: string(img.Visibility), Status: string(img.Status),
		Image: nova.Image{Name: img.Name, Properties: props}}
}

// ResolveImages turns names/IDs and a property selection into images,
// once each. Every unknown or ambiguous name is reported together, before
// anything is written.
func ResolveImages(ctx context.Context, c *gophercloud.ServiceClient, refs []string, selector map[string]string) ([]nova.CloudImage, error) {
	found, err := findImages(ctx, c, refs)
	if err != nil {
		return nil, err
	}
	if len(selector) > 0 {
		sel, err := ListImages(ctx, c, ImageListOpts{Properties: selector})
		if err != nil {
			return nil, err
		}
		found = append(found, sel...)
	}
	seen := map[string]bool{}
	out := found[:0]
	for _, img := range found {
		if !seen[img.ID] {
			seen[img.ID] = true
			out = append(out, img)
		}
	}
	return out, nil
}

func findImages(ctx context.Context, c *gophercloud.ServiceClient, refs []string) ([]nova.CloudImage, error) {
	found := make([]nova.CloudImage, len(refs))
	if len(refs) < manyRefs {
		errs := parallel.Do(ctx, len(refs), parallel.DefaultLimit, func(ctx context.Context, i int) error {
			var err error
			found[i], err = FindImage(ctx, c, refs[i])
			return err
		})
		return found, errors.Join(errs...)
	}
	all, err := ListImages(ctx, c, ImageListOpts{})
	if err != nil {
		return nil, err
	}
	var errs []error
	for i, ref := range refs {
		var byName []nova.CloudImage
		for _, img := range all {
			if img.ID == ref {
				byName = []nova.CloudImage{img}
				break
			}
			if img.Name == ref {
				byName = append(byName, img)
			}
		}
		switch len(byName) {
		case 1:
			found[i] = byName[0]
		case 0:
			found[i], err = FindImage(ctx, c, ref) // e.g. a shared image not listed
			errs = append(errs, err)
		default:
			ids := make([]string, len(byName))
			for k, img := range byName {
				ids[k] = img.ID
			}
			sort.Strings(ids)
			errs = append(errs, &nova.AmbiguousError{Kind: "image", Ref: ref, IDs: ids})
		}
	}
	return found, errors.Join(errs...)
}

// ApplyImagePlans writes each image's changes (one PATCH per image, none
// when nothing differs), a bounded number at a time.
func ApplyImagePlans(ctx context.Context, c *gophercloud.ServiceClient, plans []nova.ObjectPlan, imgs []nova.CloudImage) {
	errs := parallel.Do(ctx, len(plans), parallel.DefaultLimit, func(ctx context.Context, i int) error {
		w := nova.Writes(plans[i].Changes)
		if len(w) == 0 {
			return nil
		}
		if err := UpdateImageProperties(ctx, c, plans[i].ID, w); err != nil {
			plans[i].Err = imageWriteError(err, imgs[i])
		}
		return nil
	})
	// A call never started (ctx ended: Ctrl-C) wrote nothing: its plan
	// must not be reported as written.
	for i, err := range errs {
		if err != nil && plans[i].Err == nil && len(nova.Writes(plans[i].Changes)) > 0 {
			plans[i].Err = err
		}
	}
}

// imageWriteError explains Glance's 403, the usual surprise: a public or
// shared image belongs to another project.
func imageWriteError(err error, img nova.CloudImage) error {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return fmt.Errorf("image %s belongs to project %s (visibility %s): only that project's members or an admin can change its properties (Glance 403)",
			nova.DisplayName(img.Name, img.ID), img.Owner, img.Visibility)
	}
	return err
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// manyRefs is where one list of every image beats a lookup per name.
const manyRefs = 5
