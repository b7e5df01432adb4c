package cinder

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/nova"
)

// imageAttributes are the keys of volume_image_metadata that Nova turns
// back into image attributes rather than properties (nova/block_device.py
// VIM_IMAGE_ATTRIBUTES): they are never hw_* properties.
var imageAttributes = map[string]bool{
	"image_id": true, "image_name": true, "size": true, "checksum": true,
	"container_format": true, "disk_format": true, "min_ram": true, "min_disk": true,
}

// BootProperties are the image properties Nova gives a server booted from
// this volume (an existing volume or a snapshot of it):
// get_image_metadata_from_volume copies volume_image_metadata and pops
// the image attributes. The Glance image the volume came from is not read.
func BootProperties(meta map[string]string) map[string]string {
	out := make(map[string]string, len(meta))
	for k, v := range meta {
		if !imageAttributes[k] {
			out[k] = v
		}
	}
	return out
}

// KindVolumeNotBootable is Nova's refusal of a boot volume whose bootable
// flag is false (exception.InvalidBDMVolumeNotBootable).
const KindVolumeNotBootable nova.ErrorKind = "InvalidBDMVolumeNotBootable"

// Decide is what Nova does with a server booted from volume v with flavor
// f on release rel. It is nova.Decide on the volume's boot properties,
// with the two differences Nova's code has for a volume:
//   - a volume that is not bootable is refused first, HTTP 400 at create
//     (compute/api.py _get_bdm_image_metadata);
//   - a flavor/volume conflict cannot be worded: the ImageMeta Nova builds
//     from a volume has no name, and _get_unique_flavor_image_meta reads
//     image_meta.name for its FlavorImageConflict message, so an
//     oslo.versionedobjects NotImplementedError ("Cannot load 'name' in the
//     base class") escapes the scheduler instead, and exception_to_dict
//     falls back to the exception's class name for the fault. The code is
//     the same on every branch from Zed to master.
func Decide(f nova.Flavor, v Volume, rel nova.Release) nova.Decision {
	name := nova.DisplayName(v.Name, v.ID)
	if !v.Bootable {
		return nova.Decision{Release: rel, RequiredTraits: []string{}, Unsupported: []nova.Operation{}, Notes: []string{},
			Error: &nova.Refusal{Kind: KindVolumeNotBootable, Exception: "InvalidBDMVolumeNotBootable",
				Message: fmt.Sprintf("Block Device %s is not bootable.", v.ID), Stage: nova.StageServerCreate, HTTPStatus: 400}}
	}
	d := nova.Decide(f, nova.Image{Name: "(volume " + name + ")", Properties: BootProperties(v.ImageMetadata)}, rel)
	if d.Error != nil && d.Error.Kind == nova.KindFlavorImageConflict && rel.SupportsVTPM() {
		meant := d.Error.Message
		d.Error = &nova.Refusal{Kind: nova.KindFlavorImageConflict, Exception: "NotImplementedError",
			Message: "NotImplementedError", Stage: nova.StageScheduling, HTTPStatus: 500}
		d.Notes = append(d.Notes, "Nova means: "+meant+
			" For a server booted from a volume it cannot say so: the image metadata it builds from the volume has no name, formatting the message raises NotImplementedError (Cannot load 'name' in the base class), and the fault shows only that class name")
	}
	return d
}
