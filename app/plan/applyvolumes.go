package plan

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
)

// Migration tools (migratekit, os-migrate, virt-v2v -o openstack) land a
// VM's disk on a Cinder volume, not in Glance: Nova then reads the boot
// volume's volume_image_metadata, so the properties the plan promised
// for the VM's image must be on that volume.

// VolumeMatch is the boot volume found for a planned VM, and how.
type VolumeMatch struct {
	Volume cinder.Volume
	By     string // "match rule", "volume image metadata vtpmctl:source", "volume metadata vtpmctl:source", "template …", "name"
}

// VolumeFinding is a volume that matched a VM only by name or template
// but is not bootable: a data volume, never tagged as the VM's boot
// volume. Reported where the VM has no boot volume at all.
type VolumeFinding struct {
	VM     string
	Volume cinder.Volume
	By     string
}

// MatchVolumes finds each planned VM's boot volume among vols, trying in
// turn: an explicit rule (VM=VOLUME, a name or ID), the vtpmctl:source
// stamp (in the volume's image metadata, where plan apply writes it, then
// in its own metadata), templates, then the name of the VM's plan image
// (the converted disk's name) and the VM's own name. Where several
// volumes qualify, only the bootable ones count; a name or template
// counts only bootable ones (a data volume may share the name), and one
// that finds only data volumes is a finding. A VM whose boot volume
// is more than one volume, a rule naming no volume, or a volume claimed
// by two VMs is a PlanError: nothing is written. The key is the plan's
// VM index; a VM without a volume is absent (its disk is not there yet).
func MatchVolumes(p *migration.Plan, vols []cinder.Volume, rules []migration.MatchRule) (map[int]VolumeMatch, []VolumeFinding, error) {
	ix := indexVolumes(vols)
	out := map[int]VolumeMatch{}
	var findings []VolumeFinding
	owner := map[string]string{}
	for i, vm := range p.VMs {
		found, by, data, err := ix.candidates(vm, rules)
		if err != nil {
			return nil, nil, err
		}
		if len(found) == 0 {
			findings = append(findings, data...)
			continue
		}
		v, err := oneBootVolume(vm.Name, found, by)
		if err != nil {
			return nil, nil, err
		}
		if other, ok := owner[v.ID]; ok {
			return nil, nil, &PlanError{fmt.Sprintf("volume %s matches both VM %s and VM %s; name each VM's boot volume with a match rule VM=VOLUME", nova.DisplayName(v.Name, v.ID), other, vm.Name)}
		}
		owner[v.ID] = vm.Name
		out[i] = VolumeMatch{Volume: v, By: by}
	}
	return out, findings, nil
}

// volumeIndex finds volumes by ID, name and vtpmctl:source stamp.
type volumeIndex struct {
	byID              map[string]cinder.Volume
	byName            map[string][]cinder.Volume
	byStamp, bySource map[string][]cinder.Volume
}

func indexVolumes(vols []cinder.Volume) volumeIndex {
	ix := volumeIndex{byID: map[string]cinder.Volume{}, byName: map[string][]cinder.Volume{}, byStamp: map[string][]cinder.Volume{}, bySource: map[string][]cinder.Volume{}}
	for _, v := range vols {
		ix.byID[v.ID] = v
		ix.byName[v.Name] = append(ix.byName[v.Name], v)
		// DiffVolumes stamps the image metadata: a rerun finds it there.
		if s := v.ImageMetadata[migration.SourceKey]; s != "" {
			ix.byStamp[s] = append(ix.byStamp[s], v)
		}
		if s := v.Metadata[migration.SourceKey]; s != "" {
			ix.bySource[s] = append(ix.bySource[s], v)
		}
	}
	return ix
}

// candidates are the volumes the first successful try finds for vm, how,
// and the data volumes a name or template found instead (findings).
func (ix volumeIndex) candidates(vm migration.PlanVM, rules []migration.MatchRule) (found []cinder.Volume, by string, data []VolumeFinding, err error) {
	try := func(how string, vs []cinder.Volume) {
		if len(found) == 0 && len(vs) > 0 {
			found, by = vs, how
		}
	}
	seen := map[string]bool{}
	// tryBoot: a name says nothing about what a volume holds, so only a
	// bootable one can be the VM's boot volume.
	tryBoot := func(how string, vs []cinder.Volume) {
		var boot []cinder.Volume
		for _, v := range vs {
			if v.Bootable {
				boot = append(boot, v)
			} else if !seen[v.ID] { // once, though two names find it
				seen[v.ID] = true
				data = append(data, VolumeFinding{VM: vm.Name, Volume: v, By: how})
			}
		}
		try(how, boot)
	}
	for _, r := range rules {
		if r.VM != vm.Name {
			continue
		}
		if v, ok := ix.byID[r.Server]; ok {
			try("match rule", []cinder.Volume{v})
		} else if vs := ix.byName[r.Server]; len(vs) > 0 {
			try("match rule", vs)
		} else {
			return nil, "", nil, &PlanError{fmt.Sprintf("VM %s: the match rule names volume %q, which is not among the listed volumes", vm.Name, r.Server)}
		}
	}
	try("volume image metadata "+migration.SourceKey, ix.byStamp[vm.Source()])
	try("volume metadata "+migration.SourceKey, ix.bySource[vm.Source()])
	for _, r := range rules {
		if r.Template != "" {
			tryBoot("template "+r.Template, ix.byName[r.Expand(vm)])
		}
	}
	if vm.TargetImage != "" {
		tryBoot("name", ix.byName[vm.TargetImage])
	}
	tryBoot("name", ix.byName[vm.Name])
	return found, by, data, nil
}

// oneBootVolume: among several candidates only the bootable ones count;
// more than one left is a PlanError (nothing is written).
func oneBootVolume(vm string, found []cinder.Volume, by string) (cinder.Volume, error) {
	if len(found) > 1 {
		var boot []cinder.Volume
		for _, v := range found {
			if v.Bootable {
				boot = append(boot, v)
			}
		}
		if len(boot) > 0 {
			found = boot
		}
	}
	if len(found) > 1 {
		ids := make([]string, len(found))
		for k, v := range found {
			ids[k] = v.ID
		}
		sort.Strings(ids)
		return cinder.Volume{}, &PlanError{fmt.Sprintf("VM %s: %d bootable volumes match by %s (%s); name the boot volume with a match rule VM=VOLUME", vm, len(found), by, strings.Join(ids, ", "))}
	}
	return found[0], nil
}

// DiffVolumes adds to c what makes each matched VM's boot volume carry
// the properties the plan promised for the VM's image (Nova's rules for
// rel: a request Nova refuses stops everything), stamped with the VM's
// source. One volume list (every project's with allProjects); a VM
// without a plan image, or without a volume, is left alone.
func DiffVolumes(ctx context.Context, volumeClient *gophercloud.ServiceClient, c *Convergence, p *migration.Plan, rules []migration.MatchRule, allProjects bool) error {
	vols, err := cinder.ListVolumes(ctx, volumeClient, cinder.ListOpts{AllTenants: allProjects})
	if err != nil {
		return fmt.Errorf("listing volumes: %w", err)
	}
	matches, findings, err := MatchVolumes(p, vols, rules)
	if err != nil {
		return err
	}
	// A data volume named like the VM is said (a note, nothing written):
	// the user learns why the VM's image is still pending.
	for _, f := range findings {
		name := nova.DisplayName(f.Volume.Name, f.Volume.ID)
		c.Volumes = append(c.Volumes, nova.ObjectPlan{ID: f.Volume.ID, Name: name,
			Notes: []string{"not bootable: not taken as the boot volume of VM " + f.VM + " (matched by " + f.By + "); name the boot volume with a match rule VM=VOLUME"}})
		c.volumes = append(c.volumes, f.Volume)
	}
	images := map[string]migration.PlanImage{}
	for _, pi := range p.Images {
		images[pi.Name] = pi
	}
	landed := map[string]bool{}
	idx := make([]int, 0, len(matches))
	for i := range matches {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		vm, m := p.VMs[i], matches[i]
		pi, ok := images[vm.TargetImage]
		if !ok {
			continue
		}
		v := m.Volume
		name := nova.DisplayName(v.Name, v.ID)
		want := map[string]string{}
		for k, val := range pi.Properties {
			want[k] = val
		}
		var notes []string
		if pi.TPMVersion != "" || pi.Windows {
			set, n, err := nova.PlanImageSet(v.ImageMetadata, nova.ImageRequest{TPMVersion: pi.TPMVersion, TPMModel: pi.TPMModel, Windows: pi.Windows})
			if err != nil {
				return fmt.Errorf("volume %s (VM %s): %w", name, vm.Name, err)
			}
			for k, val := range set {
				want[k] = val
			}
			notes = n
		}
		// plan verify finds the server booted from this volume by it.
		want[migration.SourceKey] = vm.Source()
		notes = append(notes, "boot volume of VM "+vm.Name+" (matched by "+m.By+")")
		changes := nova.Diff(name, v.ID, v.ImageMetadata, want, nil)
		c.Volumes = append(c.Volumes, nova.ObjectPlan{ID: v.ID, Name: name, Changes: changes, Notes: notes,
			NearMisses: nova.NearMissesAfter(v.ImageMetadata, changes, nova.ImageKeys)})
		c.volumes = append(c.volumes, v)
		landed[pi.Name] = true
	}
	// A plan image whose disk landed on a volume is not pending.
	missing := c.Missing[:0]
	for _, m := range c.Missing {
		if !landed[m] {
			missing = append(missing, m)
		}
	}
	c.Missing = missing
	return nil
}

// ApplyVolumes writes what DiffVolumes found: one os-set_image_metadata
// per volume that differs, none for one that already matches (a rerun
// sends nothing); a failed volume's plan gets Err and counts in Failed.
func ApplyVolumes(ctx context.Context, volumeClient *gophercloud.ServiceClient, c *Convergence) {
	cinder.ApplyVolumePlans(ctx, volumeClient, c.Volumes, c.volumes)
}
