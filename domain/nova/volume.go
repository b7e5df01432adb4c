package nova

import "fmt"

// BootVolume is what Nova reads of a server's boot volume (an existing
// volume or a snapshot of it): its name for messages, its bootable flag
// and its volume_image_metadata.
type BootVolume struct {
	ID, Name      string
	Bootable      bool
	ImageMetadata map[string]string
}

// volumeImageAttributes are the keys of volume_image_metadata that Nova
// turns back into image attributes rather than properties
// (nova/block_device.py VIM_IMAGE_ATTRIBUTES): they are never hw_*
// properties.
var volumeImageAttributes = map[string]bool{
	"image_id": true, "image_name": true, "size": true, "checksum": true,
	"container_format": true, "disk_format": true, "min_ram": true, "min_disk": true,
}

// VolumeBootProperties are the image properties Nova gives a server
// booted from a volume with this volume_image_metadata:
// get_image_metadata_from_volume copies it and pops the image attributes.
// The Glance image the volume came from is not read.
func VolumeBootProperties(meta map[string]string) map[string]string {
	out := make(map[string]string, len(meta))
	for k, v := range meta {
		if !volumeImageAttributes[k] {
			out[k] = v
		}
	}
	return out
}

// KindVolumeNotBootable is Nova's refusal of a boot volume whose bootable
// flag is false (exception.InvalidBDMVolumeNotBootable).
const KindVolumeNotBootable ErrorKind = "InvalidBDMVolumeNotBootable"

// DecideVolume is what Nova does with a server booted from volume v with
// flavor f on release rel. It is Decide on the volume's boot properties,
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
func DecideVolume(f Flavor, v BootVolume, rel Release) Decision {
	name := DisplayName(v.Name, v.ID)
	if !v.Bootable {
		return Decision{Release: rel, RequiredTraits: []string{}, Unsupported: []Operation{}, Notes: []string{},
			Error: &Refusal{Kind: KindVolumeNotBootable, Exception: ExceptionVolumeNotBootable,
				Message: fmt.Sprintf("Block Device %s is not bootable.", v.ID), Stage: StageServerCreate, HTTPStatus: 400}}
	}
	d := Decide(f, Image{Name: "(volume " + name + ")", Properties: VolumeBootProperties(v.ImageMetadata)}, rel)
	if d.Error != nil && d.Error.Kind == KindFlavorImageConflict && rel.SupportsVTPM() {
		meant := d.Error.Message
		d.Error = &Refusal{Kind: KindFlavorImageConflict, Exception: ExceptionNotImplementedError,
			Message: "NotImplementedError", Stage: StageScheduling, HTTPStatus: 500}
		d.Notes = append(d.Notes, "Nova means: "+meant+
			" For a server booted from a volume it cannot say so: the image metadata it builds from the volume has no name, formatting the message raises NotImplementedError (Cannot load 'name' in the base class), and the fault shows only that class name")
	}
	return d
}
