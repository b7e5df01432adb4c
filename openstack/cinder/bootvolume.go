package cinder

import (
	"regexp"
	"strings"
)

// devicePrefix is Nova's disk prefix (nova/block_device.py _pref):
// vd virtio, sd scsi/sata/usb, hd ide, xvd xen.
var devicePrefix = regexp.MustCompile(`^(x?v|s|h)d`)

// IsBootAttachment reports whether a volume attached as device is the
// server's boot disk. rootDevice is the server's
// OS-EXT-SRV-ATTR:root_device_name ("" when the API does not show it: it
// needs microversion 2.3 and, by default policy, an admin); Nova passes
// the root block device mapping's device_name, which is that name, to
// Cinder as the attachment's device. Without it, Nova's own rule for a
// legacy mapping applies (nova/block_device.py get_bdm_image_metadata):
// the bootable volume whose device letter is "a" — /dev/vda, /dev/sda,
// /dev/hda (IDE, common for Windows images) or /dev/xvda.
func IsBootAttachment(device string, bootable bool, rootDevice string) bool {
	if device == "" {
		return false
	}
	if rootDevice != "" {
		return stripDev(device) == stripDev(rootDevice)
	}
	d := stripDev(device)
	return bootable && devicePrefix.MatchString(d) && strings.TrimRight(devicePrefix.ReplaceAllString(d, ""), "0123456789") == "a"
}

// stripDev is Nova's strip_dev: the name without a leading /dev/.
func stripDev(s string) string { return strings.TrimPrefix(s, "/dev/") }
