package cinder

// Helpers only the tests call.

// BootVolume returns the volume server boots from among vols, by
// IsBootAttachment (the fallback covers IDE's /dev/hda and Xen's
// /dev/xvda, and checks that the volume is bootable, as Nova requires:
// InvalidBDMVolumeNotBootable).
func BootVolume(vols []Volume, serverID, rootDevice string) (Volume, bool) {
	for _, v := range vols {
		for _, a := range v.Attachments {
			if a.ServerID == serverID && IsBootAttachment(a.Device, bool(v.Bootable), rootDevice) {
				return v, true
			}
		}
	}
	return Volume{}, false
}
