package nova

import (
	"fmt"
	"sort"
	"strings"
)

// ObjectPlan is one object's planned (or applied) changes.
type ObjectPlan struct {
	ID, Name string
	Changes  []Change
	Notes    []string
	// NearMisses are the object's keys, once changed, that Nova ignores
	// but that stand for vTPM keys (NearMissesAfter): hw_tpm_verion left
	// on an image that is given hw_tpm_version.
	NearMisses []NearMiss
	Err        error // set when the write failed
}

// PlanImages computes every image's changes; any invalid plan stops all.
func PlanImages(imgs []CloudImage, set bool, req ImageRequest) ([]ObjectPlan, error) {
	plans := make([]ObjectPlan, 0, len(imgs))
	for _, img := range imgs {
		p := ObjectPlan{ID: img.ID, Name: DisplayName(img.Name, img.ID)}
		if set {
			props, notes, err := PlanImageSet(img.Properties, req)
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", p.Name, err)
			}
			p.Changes, p.Notes = Diff(p.Name, img.ID, img.Properties, props, nil), notes
		} else {
			p.Changes = Diff(p.Name, img.ID, img.Properties, nil, PlanImageUnset(img.Properties, req.Windows))
		}
		p.NearMisses = NearMissesAfter(img.Properties, p.Changes, ImageKeys)
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

// DisplayName names an object by name, else by ID, in messages.
func DisplayName(name, id string) string {
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
