package cinder

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/paging"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// ImageMetadataMicroversion is what the calls below speak: 3.0 already
// has volume_image_metadata in volume bodies and both image-metadata
// actions, so every Cinder v3 answers them the same.
const ImageMetadataMicroversion = "3.0"

// at is a copy of c at microversion mv: the caller's client is shared.
func at(c *gophercloud.ServiceClient, mv string) *gophercloud.ServiceClient {
	cc := *c
	cc.Microversion = mv
	return &cc
}

// GetVolume is GET /volumes/{id}.
func GetVolume(ctx context.Context, c *gophercloud.ServiceClient, id string) (Volume, error) {
	var v Volume
	err := volumes.Get(ctx, at(c, ImageMetadataMicroversion), id).ExtractIntoStructPtr(&v, "volume")
	return v, err
}

// SetImageMetadata is POST /volumes/{id}/action os-set_image_metadata:
// Cinder merges meta into volume_image_metadata (other keys stay).
func SetImageMetadata(ctx context.Context, c *gophercloud.ServiceClient, id string, meta map[string]string) error {
	return volumes.SetImageMetadata(ctx, at(c, ImageMetadataMicroversion), id, volumes.ImageMetadataOpts{Metadata: meta}).ExtractErr()
}

// UnsetImageMetadata is POST /volumes/{id}/action os-unset_image_metadata;
// Cinder removes one key per request, and answers 404 for a key the
// volume does not have as for a volume that is gone
// (cinder/api/contrib/volume_image_metadata.py: GlanceMetadataNotFound,
// VolumeNotFound). gophercloud has no call for it.
func UnsetImageMetadata(ctx context.Context, c *gophercloud.ServiceClient, id, key string) error {
	body := map[string]any{"os-unset_image_metadata": map[string]string{"key": key}}
	cc := at(c, ImageMetadataMicroversion)
	resp, err := cc.Post(ctx, cc.ServiceURL("volumes", id, "action"), body, nil, &gophercloud.RequestOpts{OkCodes: []int{200}})
	_, _, err = gophercloud.ParseResponse(resp, err)
	return err
}

// listByName is GET /volumes/detail?name=NAME (Cinder's name filter is
// an exact match), every page.
func listByName(ctx context.Context, c *gophercloud.ServiceClient, name string, allProjects bool) ([]Volume, error) {
	var out []Volume
	err := volumes.List(at(c, ImageMetadataMicroversion), volumes.ListOpts{Name: name, AllTenants: allProjects, Limit: 1000}).EachPage(paging.Guard(ctx, "volume list"), func(_ context.Context, p pagination.Page) (bool, error) {
		var page []Volume
		err := volumes.ExtractVolumesInto(p, &page)
		for _, v := range page {
			if v.Name == name {
				out = append(out, v)
			}
		}
		return true, err
	})
	return out, err
}

// FindVolume resolves a volume by ID, then by name (allProjects: an
// admin's name lookup across projects).
func FindVolume(ctx context.Context, c *gophercloud.ServiceClient, ref string, allProjects bool) (Volume, error) {
	if uuidRE.MatchString(ref) {
		v, err := GetVolume(ctx, c, ref)
		if err == nil || !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return v, err
		}
	}
	found, err := listByName(ctx, c, ref, allProjects)
	if err != nil {
		return Volume{}, err
	}
	switch len(found) {
	case 0:
		return Volume{}, &nova.NotFoundError{Kind: "volume", Ref: ref}
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, v := range found {
		ids[i] = v.ID
	}
	sort.Strings(ids)
	return Volume{}, &nova.AmbiguousError{Kind: "volume", Ref: ref, IDs: ids}
}

// ResolveVolumes turns names/IDs and an image-metadata selection into
// volumes, once each. The selection is one list of the bootable volumes
// (Cinder cannot filter on volume_image_metadata on every release), and
// every unknown or ambiguous name is reported together, before any write.
func ResolveVolumes(ctx context.Context, c *gophercloud.ServiceClient, refs []string, selector map[string]string, allProjects bool) ([]Volume, error) {
	var found []Volume
	var errs []error
	for _, ref := range refs {
		v, err := FindVolume(ctx, c, ref, allProjects)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		found = append(found, v)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(selector) > 0 {
		all, err := ListVolumes(ctx, at(c, ImageMetadataMicroversion), ListOpts{AllTenants: allProjects, Bootable: true})
		if err != nil {
			return nil, err
		}
		found = append(found, Select(all, selector)...)
	}
	seen := map[string]bool{}
	out := found[:0]
	for _, v := range found {
		if !seen[v.ID] {
			seen[v.ID] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// Select keeps the bootable volumes whose image metadata has every
// KEY=VALUE (bootable again here: a list filter a server ignored must
// not make a data volume a target).
func Select(vols []Volume, selector map[string]string) []Volume {
	var out []Volume
next:
	for _, v := range vols {
		if !v.Bootable {
			continue
		}
		for k, want := range selector {
			if got, ok := v.ImageMetadata[k]; !ok || got != want {
				continue next
			}
		}
		out = append(out, v)
	}
	return out
}

// ApplyVolumePlans writes each volume's changes: one os-set_image_metadata
// with every added or replaced key, one os-unset_image_metadata per
// removed key, nothing when nothing differs. A failed volume's plan gets
// Err; the others are still written. A failed set leaves the volume's
// removals unsent (half a profile is not what was asked); a failed
// removal does not stop the next (each is one key of its own).
func ApplyVolumePlans(ctx context.Context, c *gophercloud.ServiceClient, plans []nova.ObjectPlan, vols []Volume) {
	errs := parallel.Do(ctx, len(plans), parallel.DefaultLimit, func(ctx context.Context, i int) error {
		plans[i].Err = writePlan(ctx, c, plans[i], vols[i])
		return nil
	})
	// A call never started (ctx ended: Ctrl-C) wrote nothing: its plan
	// must not be reported as written.
	for i, err := range errs {
		if err != nil && plans[i].Err == nil && len(nova.Writes(plans[i].Changes)) > 0 {
			plans[i].Err = err
		}
	}
}

// writePlan writes one volume's plan. Its error says, where Cinder holds
// some of the changes already, which (nova.PartialWriteError), so the
// report says "partly changed", not "not changed".
func writePlan(ctx context.Context, c *gophercloud.ServiceClient, p nova.ObjectPlan, v Volume) error {
	set := map[string]string{}
	var unset, written []string
	for _, w := range nova.Writes(p.Changes) {
		if w.Action == nova.Removed {
			unset = append(unset, w.Key)
		} else {
			set[w.Key] = w.New
		}
	}
	if len(set) > 0 {
		if err := SetImageMetadata(ctx, c, p.ID, set); err != nil {
			return volumeWriteError(err, v)
		}
		for k := range set {
			written = append(written, k)
		}
	}
	removed, err := removeKeys(ctx, c, v, unset)
	written = append(written, removed...)
	if err == nil {
		return nil
	}
	if len(written) > 0 {
		sort.Strings(written)
		err = &nova.PartialWriteError{Written: written, NotWritten: notIn(p.Changes, written), Err: err}
	}
	return err
}

// removeKeys removes each key, every one even after another failed, and
// returns those the volume no longer has and every failure, each naming
// its key. Only an ended ctx stops it: the rest would fail the same way.
func removeKeys(ctx context.Context, c *gophercloud.ServiceClient, v Volume, keys []string) (removed []string, err error) {
	var errs []error
	gone := absentKeys{c: c, id: v.ID}
	for _, k := range keys {
		if ctx.Err() != nil {
			errs = append(errs, ctx.Err())
			break
		}
		if err := gone.remove(ctx, k); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, k)
	}
	return removed, removalError(errs, v)
}

// absentKeys removes keys from one volume. Cinder answers 404 both for a
// key the volume does not have and for a volume that is gone, so a 404
// is success only once the volume, read back (once), lacks the key: a
// key already removed (by a rerun, by someone else) is what was asked.
type absentKeys struct {
	c       *gophercloud.ServiceClient
	id      string
	read    bool
	now     map[string]string // the volume's image metadata, once read
	readErr error             // why it could not be (gone: a 404)
}

func (a *absentKeys) remove(ctx context.Context, key string) error {
	err := UnsetImageMetadata(ctx, a.c, a.id, key)
	if err == nil || !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return keyError(key, err)
	}
	if !a.read {
		var v Volume
		v, a.readErr = GetVolume(ctx, a.c, a.id)
		a.now, a.read = v.ImageMetadata, true
	}
	if a.readErr != nil {
		return keyError(key, fmt.Errorf("%w; reading the volume back: %w", err, a.readErr))
	}
	if _, still := a.now[key]; still {
		return keyError(key, err)
	}
	return nil
}

// keyError names the key a removal failed for (nil stays nil).
func keyError(key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("removing %s: %w", key, err)
}

// removalError joins a volume's failed removals. Where every one is
// Cinder's 403, the volume is another project's (or policy says no): one
// sentence says so, not one per key.
func removalError(errs []error, v Volume) error {
	if len(errs) == 0 {
		return nil
	}
	for _, err := range errs {
		if !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
			return errors.Join(errs...)
		}
	}
	return volumeWriteError(errs[0], v)
}

// notIn is the changed keys not in written, in plan order.
func notIn(cs []nova.Change, written []string) []string {
	done := map[string]bool{}
	for _, k := range written {
		done[k] = true
	}
	var out []string
	for _, w := range nova.Writes(cs) {
		if !done[w.Key] {
			out = append(out, w.Key)
		}
	}
	return out
}

// volumeWriteError explains Cinder's 403: the volume belongs to another
// project (an admin's --all-projects selection, or a policy that says no).
func volumeWriteError(err error, v Volume) error {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return fmt.Errorf("volume %s of project %s: Cinder refused to change its image metadata (403: only that project's members or an admin can)", nova.DisplayName(v.Name, v.ID), v.ProjectID)
	}
	return err
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)
