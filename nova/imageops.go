package nova

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// ObjectPlan is one object's planned (or applied) changes.
type ObjectPlan struct {
	ID, Name string
	Changes  []Change
	Notes    []string
	Err      error // set when the write failed
}

// ResolveImages turns names/IDs and a property selection into images,
// once each. Every unknown or ambiguous name is reported together, before
// anything is written.
func ResolveImages(ctx context.Context, c *gophercloud.ServiceClient, refs []string, selector map[string]string) ([]CloudImage, error) {
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

// manyRefs is where one list of every image beats a lookup per name.
const manyRefs = 5

func findImages(ctx context.Context, c *gophercloud.ServiceClient, refs []string) ([]CloudImage, error) {
	found := make([]CloudImage, len(refs))
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
		var byName []CloudImage
		for _, img := range all {
			if img.ID == ref {
				byName = []CloudImage{img}
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
			errs = append(errs, &AmbiguousError{"image", ref, ids})
		}
	}
	return found, errors.Join(errs...)
}

// PlanImages computes every image's changes; any invalid plan stops all.
func PlanImages(imgs []CloudImage, set bool, req ImageRequest) ([]ObjectPlan, error) {
	plans := make([]ObjectPlan, 0, len(imgs))
	for _, img := range imgs {
		p := ObjectPlan{ID: img.ID, Name: displayName(img.Name, img.ID)}
		if set {
			props, notes, err := PlanImageSet(img.Properties, req)
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", p.Name, err)
			}
			p.Changes, p.Notes = Diff(p.Name, img.ID, img.Properties, props, nil), notes
		} else {
			p.Changes = Diff(p.Name, img.ID, img.Properties, nil, PlanImageUnset(img.Properties, req.Windows))
		}
		plans = append(plans, p)
	}
	return plans, nil
}

// ImageConflicts names the flavors with which an image, once changed,
// would end in ERROR at boot — Nova's own message for each pair.
func ImageConflicts(imgs []CloudImage, plans []ObjectPlan, fls []CloudFlavor, rel Release) []string {
	var out []string
	for i, img := range imgs {
		after := Image{Name: img.Name, Properties: Apply(img.Properties, plans[i].Changes)}
		for _, f := range fls {
			if len(VTPMKeys(f.ExtraSpecs, IsVTPMFlavorKey)) == 0 {
				continue
			}
			if d := Decide(f.Flavor, after, rel); d.Error != nil && d.Error.Stage == StageScheduling {
				out = append(out, fmt.Sprintf("image %s with flavor %s would end in ERROR: %s", plans[i].Name, f.Name, d.Error.Message))
			}
		}
	}
	return out
}

// ApplyImagePlans writes each image's changes (one PATCH per image, none
// when nothing differs), a bounded number at a time.
func ApplyImagePlans(ctx context.Context, c *gophercloud.ServiceClient, plans []ObjectPlan, imgs []CloudImage) {
	parallel.Do(ctx, len(plans), parallel.DefaultLimit, func(ctx context.Context, i int) error {
		w := Writes(plans[i].Changes)
		if len(w) == 0 {
			return nil
		}
		if err := UpdateImageProperties(ctx, c, plans[i].ID, w); err != nil {
			plans[i].Err = imageWriteError(err, imgs[i])
		}
		return nil
	})
}

// imageWriteError explains Glance's 403, the usual surprise: a public or
// shared image belongs to another project.
func imageWriteError(err error, img CloudImage) error {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return fmt.Errorf("image %s belongs to project %s (visibility %s): only that project's members or an admin can change its properties (Glance 403)",
			displayName(img.Name, img.ID), img.Owner, img.Visibility)
	}
	return err
}

func displayName(name, id string) string {
	if name == "" {
		return id
	}
	return name
}

// ImageSummary describes an image's vTPM state for `image show/list`.
type ImageSummary struct {
	TPMVersion, TPMModel string
	WindowsProfile       string // complete, partial (Windows images only), none
	Missing              []string
}

// SummarizeImage says which vTPM and Windows-profile keys an image has.
func SummarizeImage(props map[string]string) ImageSummary {
	s := ImageSummary{TPMVersion: props[ImageTPMVersion], TPMModel: props[ImageTPMModel]}
	want, _, err := PlanImageSet(props, ImageRequest{Windows: true, TPMModel: props[ImageTPMModel]})
	if err != nil {
		want, _, _ = PlanImageSet(props, ImageRequest{Windows: true})
	}
	for _, k := range WindowsProfileKeys() {
		if props[k] != want[k] {
			s.Missing = append(s.Missing, k+"="+want[k])
		}
	}
	sort.Strings(s.Missing)
	isWindows := strings.EqualFold(props["os_type"], "windows") || strings.EqualFold(props["os_distro"], "windows")
	switch {
	case len(s.Missing) == 0:
		s.WindowsProfile = "complete"
	case isWindows:
		s.WindowsProfile = "partial: missing " + strings.Join(s.Missing, " ")
	default:
		s.WindowsProfile = "none"
	}
	return s
}
