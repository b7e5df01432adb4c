package compute

import (
	"context"
	"errors"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/paging"
)

// FindFlavor resolves a flavor by ID, then by name (one paginated list;
// Nova below 2.102 has no name filter), at FlavorMicroversion.
func FindFlavor(ctx context.Context, c *gophercloud.ServiceClient, ref string) (nova.CloudFlavor, error) {
	c = atMicroversion(c, FlavorMicroversion)
	f, err := flavors.Get(ctx, c, ref).Extract()
	if err == nil {
		return toCloudFlavor(*f), nil
	}
	if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nova.CloudFlavor{}, err
	}
	all, err := ListFlavors(ctx, c)
	if err != nil {
		return nova.CloudFlavor{}, err
	}
	var match []nova.CloudFlavor
	for _, f := range all {
		if f.Name == ref {
			match = append(match, f)
		}
	}
	switch len(match) {
	case 0:
		return nova.CloudFlavor{}, &nova.NotFoundError{Kind: "flavor", Ref: ref}
	case 1:
		return match[0], nil
	}
	ids := make([]string, len(match))
	for i, f := range match {
		ids[i] = f.ID
	}
	return nova.CloudFlavor{}, &nova.AmbiguousError{Kind: "flavor", Ref: ref, IDs: ids}
}

// ListFlavors lists every flavor the caller can see, extra specs included
// (FlavorMicroversion: no extra-spec GET per flavor).
func ListFlavors(ctx context.Context, c *gophercloud.ServiceClient) ([]nova.CloudFlavor, error) {
	c = atMicroversion(c, FlavorMicroversion)
	var out []nova.CloudFlavor
	err := flavors.ListDetail(c, flavors.ListOpts{AccessType: flavors.AllAccess, Limit: 1000}).EachPage(paging.Guard(ctx, "flavor list"), func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := flavors.ExtractFlavors(p)
		for _, f := range l {
			out = append(out, toCloudFlavor(f))
		}
		return true, err
	})
	return out, err
}

func toCloudFlavor(f flavors.Flavor) nova.CloudFlavor {
	specs := f.ExtraSpecs
	if specs == nil {
		specs = map[string]string{}
	}
	return nova.CloudFlavor{ID: f.ID, IsPublic: f.IsPublic, VCPUs: f.VCPUs, RAM: f.RAM, Disk: f.Disk, Ephemeral: f.Ephemeral,
		Flavor: nova.Flavor{Name: f.Name, ExtraSpecs: specs}}
}

// ResolveFlavors resolves names/IDs with one flavor list (not one lookup
// per name), once each; every unknown or ambiguous name is reported
// together, before anything is written.
func ResolveFlavors(ctx context.Context, c *gophercloud.ServiceClient, refs []string) ([]nova.CloudFlavor, error) {
	cc := atMicroversion(c, FlavorMicroversion)
	all, err := ListFlavors(ctx, cc)
	if err != nil {
		return nil, err
	}
	var out []nova.CloudFlavor
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

func matchFlavor(ctx context.Context, c *gophercloud.ServiceClient, all []nova.CloudFlavor, ref string) (nova.CloudFlavor, error) {
	var byName []nova.CloudFlavor
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
		return nova.CloudFlavor{}, &nova.NotFoundError{Kind: "flavor", Ref: ref}
	}
	ids := make([]string, len(byName))
	for i, f := range byName {
		ids[i] = f.ID
	}
	return nova.CloudFlavor{}, &nova.AmbiguousError{Kind: "flavor", Ref: ref, IDs: ids}
}

// LookupFlavorName is the lookup a flavor create starts with (FindFlavor:
// by ID, then by name): the flavor, or nil, no error, when none exists.
// A caller that needs the flavor before the create (flavor create's
// advice) looks it up once and hands it to the create.
func LookupFlavorName(ctx context.Context, c *gophercloud.ServiceClient, name string) (*nova.CloudFlavor, error) {
	f, err := FindFlavor(ctx, c, name)
	var nf *nova.NotFoundError
	switch {
	case err == nil:
		return &f, nil
	case errors.As(err, &nf):
		return nil, nil
	}
	return nil, err
}
