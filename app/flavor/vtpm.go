package flavor

// The vTPM flavor writes that flavor create and plan apply share: each
// flavor's spec changes applied a bounded number at a time, and the
// all-or-nothing create (the flavor, its access, its specs, or none of
// them). A use case over several compute requests, so it lives here and
// not in openstack/compute (one function per request there).

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
)

// RollbackTimeout bounds the undo of a half-made flavor.
var RollbackTimeout = 30 * time.Second

// ApplyPlans writes each flavor's changes, a bounded number at a time.
func ApplyPlans(ctx context.Context, c *gophercloud.ServiceClient, plans []nova.ObjectPlan) {
	errs := parallel.Do(ctx, len(plans), parallel.DefaultLimit, func(ctx context.Context, i int) error {
		if w := nova.Writes(plans[i].Changes); len(w) > 0 {
			plans[i].Err = writeError(compute.SetFlavorSpecs(ctx, c, plans[i].ID, w))
		}
		return nil
	})
	// A call never started (ctx ended: Ctrl-C) wrote nothing: its plan
	// must not be reported as written (as glance's and cinder's).
	for i, err := range errs {
		if err != nil && plans[i].Err == nil && len(nova.Writes(plans[i].Changes)) > 0 {
			plans[i].Err = err
		}
	}
}

func writeError(err error) error {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return fmt.Errorf("flavor extra specs can only be changed with the admin role (policy os_compute_api:os-flavor-extra-specs:create/update/delete; Nova 403)")
	}
	return err
}

// Size is what Nova cannot change on an existing flavor.
type Size struct {
	VCPUs, RAM, Disk int // RAM MiB, disk GiB
	Public           bool
}

func (s Size) String() string {
	vis := "private"
	if s.Public {
		vis = "public"
	}
	return fmt.Sprintf("%d vCPU, %d MiB, %d GiB, %s", s.VCPUs, s.RAM, s.Disk, vis)
}

// SizeError: a flavor of that name exists with another size. Nova
// cannot resize a flavor, so nothing was written; the name is the input to
// change (another one, or delete the flavor), a usage error for every
// command that meets it. The caller adds where its user changes the name.
type SizeError struct {
	Name       string
	Have, Want Size
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("flavor %s exists with %s, not %s: Nova cannot resize a flavor in place", e.Name, e.Have, e.Want)
}

// Is keeps errors.Is(err, nova.ErrFlavorExists) true.
func (e *SizeError) Is(target error) bool { return target == nova.ErrFlavorExists }

// VTPMOpts is `flavor create`: the flavor, its specs, its projects.
type VTPMOpts struct {
	compute.CreateOpts
	Projects []string // project IDs for a private flavor
	Specs    map[string]string
}

// CreateVTPM creates a flavor with its access and specs, or nothing:
// if anything fails after the flavor exists, the flavor is deleted again,
// so no vTPM-named flavor is left without its specs. A flavor of that
// name and size that already exists is brought to the specs instead
// (scripts can rerun), and created reports which happened.
func CreateVTPM(ctx context.Context, c *gophercloud.ServiceClient, o VTPMOpts, rel nova.Release) (plan nova.ObjectPlan, created bool, err error) {
	existing, err := compute.LookupFlavorName(ctx, c, o.Name)
	if err != nil {
		return nova.ObjectPlan{}, false, err
	}
	return EnsureVTPM(ctx, c, o, rel, existing)
}

// EnsureVTPM is CreateVTPM after the lookup: existing is the
// flavor of o.Name as LookupFlavorName found it (nil: none), so a caller
// that already looked does not ask Nova again.
func EnsureVTPM(ctx context.Context, c *gophercloud.ServiceClient, o VTPMOpts, rel nova.Release, existing *nova.CloudFlavor) (plan nova.ObjectPlan, created bool, err error) {
	if existing != nil {
		have := Size{existing.VCPUs, existing.RAM, existing.Disk, existing.IsPublic}
		if want := (Size{o.VCPUs, o.RAM, o.Disk, o.Public}); have != want {
			return nova.ObjectPlan{}, false, &SizeError{Name: o.Name, Have: have, Want: want}
		}
		plans, err := nova.PlanFlavors([]nova.CloudFlavor{*existing}, o.Specs, nil, rel)
		if err != nil {
			return nova.ObjectPlan{}, false, err
		}
		ApplyPlans(ctx, c, plans)
		return plans[0], false, plans[0].Err
	}
	if _, err := nova.PlanFlavors([]nova.CloudFlavor{{Flavor: nova.Flavor{Name: o.Name}}}, o.Specs, nil, rel); err != nil {
		return nova.ObjectPlan{}, false, err
	}
	f, err := compute.CreateFlavor(ctx, c, o.CreateOpts)
	if err != nil {
		return nova.ObjectPlan{}, false, err
	}
	plan = nova.ObjectPlan{ID: f.ID, Name: f.Name, Changes: append([]nova.Change{{Object: f.Name, ID: f.ID, Key: "id", New: f.ID, Action: nova.Added}},
		nova.Diff(f.Name, f.ID, f.ExtraSpecs, o.Specs, nil)...)}
	err = func() error {
		for _, p := range o.Projects {
			if err := compute.AddFlavorAccess(ctx, c, f.ID, p); err != nil {
				return fmt.Errorf("granting project %s access: %w", p, err)
			}
		}
		return writeError(compute.SetFlavorSpecs(ctx, c, f.ID, nova.Writes(plan.Changes[1:])))
	}()
	if err != nil {
		// After Ctrl-C ctx is cancelled: the rollback gets a context of its
		// own (not cancelled, short) so the half-made flavor still goes.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RollbackTimeout)
		defer cancel()
		if derr := compute.DeleteFlavor(rctx, c, f.ID); derr != nil {
			return plan, true, fmt.Errorf("%v; and deleting the half-made flavor failed too (%v): flavor %s (%s) exists WITHOUT its vTPM specs — delete it", err, derr, f.Name, f.ID)
		}
		return plan, false, fmt.Errorf("%v; the flavor was deleted again, nothing is left behind", err)
	}
	return plan, true, nil
}
