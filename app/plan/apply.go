package plan

import (
	"context"
	"errors"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/app/flavor"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// Convergence is what `plan diff`/`plan apply` found or did, per object.
type Convergence struct {
	Images  []nova.ObjectPlan
	Flavors []nova.ObjectPlan
	Missing []string // plan images not (yet) in Glance: converted disks come later
	// Volumes are the planned VMs' boot volumes (DiffVolumes): a
	// migration tool landed the disk on Cinder, not in Glance.
	Volumes []nova.ObjectPlan
	volumes []cinder.Volume // Volumes[i]'s volume
	// created[i] is the flavor to create for Flavors[i] (nil: it exists).
	create []*migration.PlanFlavor
}

// Failed counts objects whose write failed.
func (c *Convergence) Failed() int {
	n := 0
	for _, p := range append(append(append([]nova.ObjectPlan{}, c.Images...), c.Flavors...), c.Volumes...) {
		if p.Err != nil {
			n++
		}
	}
	return n
}

// PlanError is a plan that cannot be applied as written (a usage error,
// unlike a cloud that failed to answer).
type PlanError struct{ Msg string }

func (e *PlanError) Error() string { return e.Msg }

// DiffPlan computes, with the image/flavor commands' own code, what makes
// the cloud match the plan. Nothing the plan does not name is touched,
// and nothing is ever removed.
func DiffPlan(ctx context.Context, imageClient, computeClient *gophercloud.ServiceClient, p *migration.Plan, rel nova.Release) (*Convergence, error) {
	c := &Convergence{}
	sources := imageSources(p)
	for _, pi := range p.Images {
		img, err := glance.FindImage(ctx, imageClient, pi.Name)
		var nf *nova.NotFoundError
		if errors.As(err, &nf) {
			c.Missing = append(c.Missing, pi.Name)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", pi.Name, err)
		}
		want := map[string]string{}
		for k, v := range pi.Properties {
			want[k] = v
		}
		if src, ok := sources[pi.Name]; ok && want[migration.SourceKey] == "" {
			want[migration.SourceKey] = src
		}
		var notes []string
		if pi.TPMVersion != "" || pi.Windows {
			set, n, err := nova.PlanImageSet(img.Properties, nova.ImageRequest{TPMVersion: pi.TPMVersion, TPMModel: pi.TPMModel, Windows: pi.Windows})
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", pi.Name, err)
			}
			for k, v := range set {
				want[k] = v
			}
			notes = n
		}
		name := img.Name
		if name == "" {
			name = img.ID
		}
		changes := nova.Diff(name, img.ID, img.Properties, want, nil)
		c.Images = append(c.Images, nova.ObjectPlan{ID: img.ID, Name: name, Changes: changes, Notes: notes,
			NearMisses: nova.NearMissesAfter(img.Properties, changes, nova.ImageKeys)})
	}
	all, err := compute.ListFlavors(ctx, computeClient)
	if err != nil {
		return nil, err
	}
	for i := range p.Flavors {
		pf := p.Flavors[i]
		specs := nova.FlavorRequest{TPMVersion: pf.TPMVersion, TPMModel: pf.TPMModel, SecretSecurity: string(pf.SecretSecurity)}
		if err := nova.ValidateFlavorRequest(specs, rel); err != nil {
			return nil, fmt.Errorf("flavor %s: %w", pf.Name, err)
		}
		var existing *nova.CloudFlavor
		for k := range all {
			if all[k].Name == pf.Name {
				if existing != nil {
					return nil, &PlanError{fmt.Sprintf("flavor %s: the name is ambiguous on the cloud", pf.Name)}
				}
				existing = &all[k]
			}
		}
		if existing == nil {
			changes := append([]nova.Change{{Object: pf.Name, Key: "flavor", New: fmt.Sprintf("%d vCPU, %d MiB, %d GiB", pf.VCPUs, pf.RAM, pf.Disk), Action: nova.Added}},
				nova.Diff(pf.Name, "", nil, specs.Specs(), nil)...)
			c.Flavors = append(c.Flavors, nova.ObjectPlan{Name: pf.Name, Changes: changes})
			c.create = append(c.create, &p.Flavors[i])
			continue
		}
		// The plan's public: is not compared (an existing flavor's access
		// is not the plan's to judge), only what Nova cannot resize.
		have := flavor.Size{VCPUs: existing.VCPUs, RAM: existing.RAM, Disk: existing.Disk, Public: existing.IsPublic}
		if want := (flavor.Size{VCPUs: pf.VCPUs, RAM: pf.RAM, Disk: pf.Disk, Public: existing.IsPublic}); have != want {
			return nil, fmt.Errorf("flavors[%d]: %w; rename it in the plan", i, &flavor.SizeError{Name: pf.Name, Have: have, Want: want})
		}
		plans, err := nova.PlanFlavors([]nova.CloudFlavor{*existing}, specs.Specs(), nil, rel)
		if err != nil {
			return nil, err
		}
		c.Flavors = append(c.Flavors, plans[0])
		c.create = append(c.create, nil)
	}
	return c, nil
}

// imageSources maps each plan image that exactly one VM boots from to that
// VM's source: plan apply stamps it as vtpmctl:source so plan verify finds
// the server created from the image. A shared image says nothing of which
// VM a server came from and is left alone.
func imageSources(p *migration.Plan) map[string]string {
	users := map[string][]string{}
	for _, vm := range p.VMs {
		if vm.TargetImage != "" {
			users[vm.TargetImage] = append(users[vm.TargetImage], vm.Source())
		}
	}
	out := map[string]string{}
	for img, srcs := range users {
		if len(srcs) == 1 {
			out[img] = srcs[0]
		}
	}
	return out
}

// ApplyConvergence writes what DiffPlan found. Each object succeeds or
// fails on its own and says so; a rerun picks up where a failure left off
// (a failed flavor create is rolled back, never left half-made).
func ApplyConvergence(ctx context.Context, imageClient, computeClient *gophercloud.ServiceClient, c *Convergence, rel nova.Release) {
	imgs := make([]nova.CloudImage, len(c.Images))
	for i, p := range c.Images {
		imgs[i] = nova.CloudImage{ID: p.ID, Image: nova.Image{Name: p.Name}}
	}
	glance.ApplyImagePlans(ctx, imageClient, c.Images, imgs)
	var existing []nova.ObjectPlan
	var idx []int
	for i, pf := range c.create {
		if pf == nil {
			existing = append(existing, c.Flavors[i])
			idx = append(idx, i)
			continue
		}
		public := pf.Public == nil || *pf.Public
		specs := nova.FlavorRequest{TPMVersion: pf.TPMVersion, TPMModel: pf.TPMModel, SecretSecurity: string(pf.SecretSecurity)}
		made, _, err := flavor.CreateVTPM(ctx, computeClient, flavor.VTPMOpts{
			CreateOpts: compute.CreateOpts{Name: pf.Name, VCPUs: pf.VCPUs, RAM: pf.RAM, Disk: pf.Disk, Public: public},
			Specs:      specs.Specs()}, rel)
		if made.Name != "" {
			c.Flavors[i].ID = made.ID
		}
		c.Flavors[i].Err = err
	}
	flavor.ApplyPlans(ctx, computeClient, existing)
	for k, i := range idx {
		c.Flavors[i] = existing[k]
	}
}
