package compute

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// RollbackTimeout bounds the undo of a half-made flavor.
var RollbackTimeout = 30 * time.Second

// ApplyFlavorPlans writes each flavor's changes, a bounded number at a time.
func ApplyFlavorPlans(ctx context.Context, c *gophercloud.ServiceClient, plans []nova.ObjectPlan) {
	parallel.Do(ctx, len(plans), parallel.DefaultLimit, func(ctx context.Context, i int) error {
		if w := nova.Writes(plans[i].Changes); len(w) > 0 {
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

// FlavorSize is what Nova cannot change on an existing flavor.
type FlavorSize struct {
	VCPUs, RAM, Disk int // RAM MiB, disk GiB
	Public           bool
}

func (s FlavorSize) String() string {
	vis := "private"
	if s.Public {
		vis = "public"
	}
	return fmt.Sprintf("%d vCPU, %d MiB, %d GiB, %s", s.VCPUs, s.RAM, s.Disk, vis)
}

// FlavorSizeError: a flavor of that name exists with another size. Nova
// cannot resize a flavor, so nothing was written; the name is the input to
// change (another one, or delete the flavor), a usage error for every
// command that meets it. The caller adds where its user changes the name.
type FlavorSizeError struct {
	Name       string
	Have, Want FlavorSize
}

func (e *FlavorSizeError) Error() string {
	return fmt.Sprintf("flavor %s exists with %s, not %s: Nova cannot resize a flavor in place", e.Name, e.Have, e.Want)
}

// Is keeps errors.Is(err, nova.ErrFlavorExists) true.
func (e *FlavorSizeError) Is(target error) bool { return target == nova.ErrFlavorExists }

// VTPMFlavorOpts is `flavor create`: the flavor, its specs, its projects.
type VTPMFlavorOpts struct {
	CreateOpts
	Projects []string // project IDs for a private flavor
	Specs    map[string]string
}

// LookupFlavorName is the lookup CreateVTPMFlavor starts with (FindFlavor:
// by ID, then by name): the flavor, or nil, no error, when none exists.
// A caller that needs the flavor before the create (flavor create's
// advice) looks it up once and hands it to EnsureVTPMFlavor.
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

// CreateVTPMFlavor creates a flavor with its access and specs, or nothing:
// if anything fails after the flavor exists, the flavor is deleted again,
// so no vTPM-named flavor is left without its specs. A flavor of that
// name and size that already exists is brought to the specs instead
// (scripts can rerun), and created reports which happened.
func CreateVTPMFlavor(ctx context.Context, c *gophercloud.ServiceClient, o VTPMFlavorOpts, rel nova.Release) (plan nova.ObjectPlan, created bool, err error) {
	existing, err := LookupFlavorName(ctx, c, o.Name)
	if err != nil {
		return nova.ObjectPlan{}, false, err
	}
	return EnsureVTPMFlavor(ctx, c, o, rel, existing)
}

// EnsureVTPMFlavor is CreateVTPMFlavor after the lookup: existing is the
// flavor of o.Name as LookupFlavorName found it (nil: none), so a caller
// that already looked does not ask Nova again.
func EnsureVTPMFlavor(ctx context.Context, c *gophercloud.ServiceClient, o VTPMFlavorOpts, rel nova.Release, existing *nova.CloudFlavor) (plan nova.ObjectPlan, created bool, err error) {
	if existing != nil {
		have := FlavorSize{existing.VCPUs, existing.RAM, existing.Disk, existing.IsPublic}
		if want := (FlavorSize{o.VCPUs, o.RAM, o.Disk, o.Public}); have != want {
			return nova.ObjectPlan{}, false, &FlavorSizeError{Name: o.Name, Have: have, Want: want}
		}
		plans, err := nova.PlanFlavors([]nova.CloudFlavor{*existing}, o.Specs, nil, rel)
		if err != nil {
			return nova.ObjectPlan{}, false, err
		}
		ApplyFlavorPlans(ctx, c, plans)
		return plans[0], false, plans[0].Err
	}
	if _, err := nova.PlanFlavors([]nova.CloudFlavor{{Flavor: nova.Flavor{Name: o.Name}}}, o.Specs, nil, rel); err != nil {
		return nova.ObjectPlan{}, false, err
	}
	f, err := CreateFlavor(ctx, c, o.CreateOpts)
	if err != nil {
		return nova.ObjectPlan{}, false, err
	}
	plan = nova.ObjectPlan{ID: f.ID, Name: f.Name, Changes: append([]nova.Change{{Object: f.Name, ID: f.ID, Key: "id", New: f.ID, Action: nova.Added}},
		nova.Diff(f.Name, f.ID, f.ExtraSpecs, o.Specs, nil)...)}
	err = func() error {
		for _, p := range o.Projects {
			if err := AddFlavorAccess(ctx, c, f.ID, p); err != nil {
				return fmt.Errorf("granting project %s access: %w", p, err)
			}
		}
		return flavorWriteError(SetFlavorSpecs(ctx, c, f.ID, nova.Writes(plan.Changes[1:])))
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
