package nova

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// FlavorRequest is what `flavor create/set/unset` asks for; "" leaves a
// key alone.
type FlavorRequest struct {
	TPMVersion, TPMModel, SecretSecurity string
}

// RollbackTimeout bounds the undo of a half-made flavor.
var RollbackTimeout = 30 * time.Second

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

// ValidateFlavorRequest refuses what Nova would refuse on this release,
// before anything is written.
func ValidateFlavorRequest(r FlavorRequest, rel Release) error {
	if err := ValidateTPMFlags(r.TPMVersion, r.TPMModel); err != nil {
		return err
	}
	if s := r.SecretSecurity; s != "" {
		if !contains(SecretSecurities, s) {
			return &RequestError{fmt.Sprintf("invalid --secret-security %q (choose %s)", s, strings.Join(SecretSecurities, ", "))}
		}
		if !rel.HasSecretSecurity() {
			return &RequestError{fmt.Sprintf("--secret-security needs Nova 2026.1 (Gazpacho) or later; this cloud runs %s, which refuses hw:tpm_secret_security as an unknown extra spec", rel.Long())}
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
				out = append(out, fmt.Sprintf("flavor %s with image %s would end in ERROR: %s", f.Name, displayName(img.Name, img.ID), d.Error.Message))
			}
		}
	}
	return out
}

// ApplyFlavorPlans writes each flavor's changes, a bounded number at a time.
func ApplyFlavorPlans(ctx context.Context, c *gophercloud.ServiceClient, plans []ObjectPlan) {
	parallel.Do(ctx, len(plans), parallel.DefaultLimit, func(ctx context.Context, i int) error {
		if w := Writes(plans[i].Changes); len(w) > 0 {
			plans[i].Err = flavorWriteError(SetFlavorSpecs(ctx, c, plans[i].ID, w))
		}
		return nil
	})
}

func flavorWriteError(err error) error {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return fmt.Errorf("flavor extra specs can only be changed with the admin role (policy os_compute_api:os-flavor-extra-specs:create/update/delete; Nova 403)")
	}
	return err
}

// CreateFlavorOpts is `flavor create`.
type CreateFlavorOpts struct {
	FlavorCreateOpts
	Projects []string // project IDs for a private flavor
	Specs    map[string]string
}

// ErrFlavorExists: NAME exists with another size; Nova cannot resize a
// flavor in place.
var ErrFlavorExists = errors.New("flavor exists with a different size")

// CreateVTPMFlavor creates a flavor with its access and specs, or nothing:
// if anything fails after the flavor exists, the flavor is deleted again,
// so no vTPM-named flavor is left without its specs. A flavor of that
// name and size that already exists is brought to the specs instead
// (scripts can rerun), and created reports which happened.
func CreateVTPMFlavor(ctx context.Context, c *gophercloud.ServiceClient, o CreateFlavorOpts, rel Release) (plan ObjectPlan, created bool, err error) {
	existing, ferr := FindFlavor(ctx, c, o.Name)
	var nf *NotFoundError
	switch {
	case ferr == nil:
		if existing.VCPUs != o.VCPUs || existing.RAM != o.RAM || existing.Disk != o.Disk || existing.IsPublic != o.Public {
			return ObjectPlan{}, false, fmt.Errorf("%w: %s has %d vCPUs, %d MB RAM, %d GB disk, public=%v; a flavor cannot be resized in place — choose another name or delete it first",
				ErrFlavorExists, o.Name, existing.VCPUs, existing.RAM, existing.Disk, existing.IsPublic)
		}
		plans, err := PlanFlavors([]CloudFlavor{existing}, o.Specs, nil, rel)
		if err != nil {
			return ObjectPlan{}, false, err
		}
		ApplyFlavorPlans(ctx, c, plans)
		return plans[0], false, plans[0].Err
	case !errors.As(ferr, &nf):
		return ObjectPlan{}, false, ferr
	}
	if _, err := PlanFlavors([]CloudFlavor{{Flavor: Flavor{Name: o.Name}}}, o.Specs, nil, rel); err != nil {
		return ObjectPlan{}, false, err
	}
	f, err := CreateFlavor(ctx, c, o.FlavorCreateOpts)
	if err != nil {
		return ObjectPlan{}, false, err
	}
	plan = ObjectPlan{ID: f.ID, Name: f.Name, Changes: append([]Change{{Object: f.Name, ID: f.ID, Key: "id", New: f.ID, Action: Added}},
		Diff(f.Name, f.ID, f.ExtraSpecs, o.Specs, nil)...)}
	err = func() error {
		for _, p := range o.Projects {
			if err := AddFlavorAccess(ctx, c, f.ID, p); err != nil {
				return fmt.Errorf("granting project %s access: %w", p, err)
			}
		}
		return flavorWriteError(SetFlavorSpecs(ctx, c, f.ID, Writes(plan.Changes[1:])))
	}()
	if err != nil {
		// After Ctrl-C ctx is cancelled: the rollback gets a context of its
		// own (not cancelled, short) so the half-made flavor still goes.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RollbackTimeout)
		defer cancel()
		if derr := DeleteFlavor(rctx, c, f.ID); derr != nil {
			return plan, true, fmt.Errorf("%v; and deleting the half-made flavor failed too (%v): flavor %s (%s) exists WITHOUT its vTPM specs — delete it", err, derr, f.Name, f.ID)
		}
		return plan, false, fmt.Errorf("%v; the flavor was deleted again, nothing is left behind", err)
	}
	return plan, true, nil
}
