package nova

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// FlavorMicroversion embeds extra_specs in flavor responses (2.61), so a
// flavor list needs no per-flavor extra-spec GET.
const FlavorMicroversion = "2.61"

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// NotFoundError: no object of that name or ID.
type NotFoundError struct{ Kind, Ref string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no %s named or with ID %q", e.Kind, e.Ref)
}

// AmbiguousError: a name that several objects share.
type AmbiguousError struct {
	Kind, Ref string
	IDs       []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d %ss are named %q; use an ID: %s", len(e.IDs), e.Kind, e.Ref, strings.Join(e.IDs, ", "))
}

// CloudImage is an image with its ID and every property as a string.
type CloudImage struct {
	ID         string
	Owner      string
	Visibility string
	Status     string
	Image
}

// CloudFlavor is a flavor with its ID and extra specs.
type CloudFlavor struct {
	ID       string
	IsPublic bool
	VCPUs    int
	RAM      int
	Disk     int
	Flavor
}

// FindImage resolves a Glance image by ID, then by name.
func FindImage(ctx context.Context, c *gophercloud.ServiceClient, ref string) (CloudImage, error) {
	if uuidRE.MatchString(ref) {
		img, err := images.Get(ctx, c, ref).Extract()
		if err == nil {
			return toCloudImage(*img), nil
		}
		if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return CloudImage{}, err
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
		return CloudImage{}, err
	}
	switch len(found) {
	case 0:
		return CloudImage{}, &NotFoundError{"image", ref}
	case 1:
		return toCloudImage(found[0]), nil
	}
	ids := make([]string, len(found))
	for i, f := range found {
		ids[i] = f.ID
	}
	sort.Strings(ids)
	return CloudImage{}, &AmbiguousError{"image", ref, ids}
}

func toCloudImage(img images.Image) CloudImage {
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
	return CloudImage{ID: img.ID, Owner: img.Owner, Visibility: string(img.Visibility), Status: string(img.Status),
		Image: Image{Name: img.Name, Properties: props}}
}

// ComputeClient returns a copy of c that speaks the flavor microversion.
func ComputeClient(c *gophercloud.ServiceClient) *gophercloud.ServiceClient {
	cc := *c
	cc.Microversion = FlavorMicroversion
	return &cc
}

// FindFlavor resolves a flavor by ID, then by name (one paginated list;
// Nova below 2.102 has no name filter). c must speak >= 2.61.
func FindFlavor(ctx context.Context, c *gophercloud.ServiceClient, ref string) (CloudFlavor, error) {
	f, err := flavors.Get(ctx, c, ref).Extract()
	if err == nil {
		return toCloudFlavor(*f), nil
	}
	if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return CloudFlavor{}, err
	}
	all, err := ListFlavors(ctx, c)
	if err != nil {
		return CloudFlavor{}, err
	}
	var match []CloudFlavor
	for _, f := range all {
		if f.Name == ref {
			match = append(match, f)
		}
	}
	switch len(match) {
	case 0:
		return CloudFlavor{}, &NotFoundError{"flavor", ref}
	case 1:
		return match[0], nil
	}
	ids := make([]string, len(match))
	for i, f := range match {
		ids[i] = f.ID
	}
	return CloudFlavor{}, &AmbiguousError{"flavor", ref, ids}
}

// ListFlavors lists every flavor the caller can see, extra specs included.
func ListFlavors(ctx context.Context, c *gophercloud.ServiceClient) ([]CloudFlavor, error) {
	var out []CloudFlavor
	err := flavors.ListDetail(c, flavors.ListOpts{AccessType: flavors.AllAccess, Limit: 1000}).EachPage(paging.Guard(ctx, "flavor list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := flavors.ExtractFlavors(p)
		for _, f := range l {
			out = append(out, toCloudFlavor(f))
		}
		return true, err
	})
	return out, err
}

func toCloudFlavor(f flavors.Flavor) CloudFlavor {
	specs := f.ExtraSpecs
	if specs == nil {
		specs = map[string]string{}
	}
	return CloudFlavor{ID: f.ID, IsPublic: f.IsPublic, VCPUs: f.VCPUs, RAM: f.RAM, Disk: f.Disk,
		Flavor: Flavor{Name: f.Name, ExtraSpecs: specs}}
}

// DetectCloudRelease reads the compute API's maximum microversion from
// its version document. gophercloud's discovery turns a failed request
// into "microversions not supported", hiding a 5xx or a failed
// re-authentication, so the document is read here and every failure named.
func DetectCloudRelease(ctx context.Context, c *gophercloud.ServiceClient) (Detection, error) {
	var doc struct {
		Version *struct {
			Version string `json:"version"`
		} `json:"version"`
	}
	u := versionDocURL(c.Endpoint)
	_, err := c.Get(ctx, u, &doc, &gophercloud.RequestOpts{OkCodes: []int{200, 300}})
	if err != nil {
		return Detection{}, fmt.Errorf("reading the compute API version document %s: %w", u, err)
	}
	if doc.Version == nil || doc.Version.Version == "" {
		return Detection{}, fmt.Errorf("the compute API version document at %s names no maximum microversion (is the compute endpoint versioned, e.g. …/v2.1?)", c.Endpoint)
	}
	mv, err := ParseMicroversion(doc.Version.Version)
	if err != nil {
		return Detection{}, fmt.Errorf("the compute API version document at %s: %w", c.Endpoint, err)
	}
	return DetectRelease(mv), nil
}

// versionDocURL drops a trailing project ID (…/v2.1/PROJECT, an old
// catalog style) so the version document is asked for.
func versionDocURL(endpoint string) string {
	e := strings.TrimRight(endpoint, "/")
	i := strings.LastIndex(e, "/")
	if i >= 0 && !strings.HasPrefix(e[i+1:], "v2") {
		e = e[:i]
	}
	return e + "/"
}

// ResolveFlavors resolves names/IDs with one flavor list (not one lookup
// per name), once each; every unknown or ambiguous name is reported
// together, before anything is written.
func ResolveFlavors(ctx context.Context, c *gophercloud.ServiceClient, refs []string) ([]CloudFlavor, error) {
	cc := ComputeClient(c)
	all, err := ListFlavors(ctx, cc)
	if err != nil {
		return nil, err
	}
	var out []CloudFlavor
	var errs []error
	seen := map[string]bool{}
	for _, ref := range refs {
		f, err := matchFlavor(ctx, cc, all, ref)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !seen[f.ID] {
			seen[f.ID] = true
			out = append(out, f)
		}
	}
	return out, errors.Join(errs...)
}

func matchFlavor(ctx context.Context, c *gophercloud.ServiceClient, all []CloudFlavor, ref string) (CloudFlavor, error) {
	var byName []CloudFlavor
	for _, f := range all {
		if f.ID == ref {
			return f, nil
		}
		if f.Name == ref {
			byName = append(byName, f)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		// not listed (a private flavor of another project): ask by ID
		if f, err := flavors.Get(ctx, c, ref).Extract(); err == nil {
			return toCloudFlavor(*f), nil
		}
		return CloudFlavor{}, &NotFoundError{"flavor", ref}
	}
	ids := make([]string, len(byName))
	for i, f := range byName {
		ids[i] = f.ID
	}
	return CloudFlavor{}, &AmbiguousError{"flavor", ref, ids}
}
