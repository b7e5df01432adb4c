package nova

import (
	"errors"
	"fmt"
)

// FlavorRequest is what `flavor create/set/unset` asks for; "" leaves a
// key alone.
type FlavorRequest struct {
	TPMVersion, TPMModel, SecretSecurity string
}

// Specs turns the request into the extra specs to set.

func (r FlavorRequest) Specs() map[string]string {
	out := map[string]string{}
	for k, v := range map[string]string{FlavorTPMVersion: r.TPMVersion, FlavorTPMModel: r.TPMModel, FlavorTPMSecretSecurity: r.SecretSecurity} {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// ValidateFlavorValues refuses a value no Nova release takes: what can be
// said before the release is known (and any cloud asked).
func ValidateFlavorValues(r FlavorRequest) error {
	if err := ValidateTPM(r.TPMVersion, r.TPMModel); err != nil {
		return err
	}
	if s := r.SecretSecurity; s != "" && !contains(SecretSecurities, s) {
		return &FieldError{Field: FieldSecretSecurity, Value: s, Choices: SecretSecurities}
	}
	return nil
}

// ValidateFlavorRequest refuses what Nova would refuse on this release,
// before anything is written.
func ValidateFlavorRequest(r FlavorRequest, rel Release) error {
	if err := ValidateFlavorValues(r); err != nil {
		return err
	}
	if s := r.SecretSecurity; s != "" {
		if !rel.HasSecretSecurity() {
			return &FieldError{Field: FieldSecretSecurity, Value: s, Reason: fmt.Sprintf("needs Nova 2026.1 (Gazpacho) or later; this cloud runs %s, which refuses hw:tpm_secret_security as an unknown extra spec", rel.Long())}
		}
	}
	return nil
}

// PlanFlavors computes each flavor's changes: set the request's specs, or
// (unset) remove the given keys. A result Nova would refuse stops all.
func PlanFlavors(fls []CloudFlavor, set map[string]string, unset []string, rel Release) ([]ObjectPlan, error) {
	plans := make([]ObjectPlan, 0, len(fls))
	for _, f := range fls {
		p := ObjectPlan{ID: f.ID, Name: f.Name, Changes: Diff(f.Name, f.ID, f.ExtraSpecs, set, unset)}
		p.NearMisses = NearMissesAfter(f.ExtraSpecs, p.Changes, FlavorKeys)
		after := Flavor{Name: f.Name, ExtraSpecs: Apply(f.ExtraSpecs, p.Changes)}
		if d := Decide(after, Image{Name: "(image without hw_tpm_*)"}, rel); d.Error != nil {
			return nil, &RequestError{fmt.Sprintf("flavor %s would be refused by Nova: %s", f.Name, d.Error.Message)}
		}
		plans = append(plans, p)
	}
	return plans, nil
}

// FlavorConflicts names the images with which a changed flavor would put
// a server in ERROR.
func FlavorConflicts(fls []CloudFlavor, plans []ObjectPlan, imgs []CloudImage, rel Release) []string {
	var out []string
	for i, f := range fls {
		after := Flavor{Name: f.Name, ExtraSpecs: Apply(f.ExtraSpecs, plans[i].Changes)}
		for _, img := range imgs {
			if len(VTPMKeys(img.Properties, IsVTPMImageKey)) == 0 {
				continue
			}
			if d := Decide(after, img.Image, rel); d.Error != nil && d.Error.Stage == StageScheduling {
				out = append(out, fmt.Sprintf("flavor %s with image %s would end in ERROR: %s", f.Name, DisplayName(img.Name, img.ID), d.Error.Message))
			}
		}
	}
	return out
}

// ErrFlavorExists: NAME exists with another size; Nova cannot resize a
// flavor in place.
var ErrFlavorExists = errors.New("flavor exists with a different size")
