package cinder

import "testing"

// Which attachment is a server's boot disk, with and without the root
// device name; the cases BootVolumeOf got wrong are marked.
func TestBootVolume(t *testing.T) {
	vol := func(id string, bootable bool, server, device string) Volume {
		return Volume{ID: id, Bootable: Bootable(bootable), Attachments: []Attachment{{ServerID: server, Device: device}}}
	}
	for _, c := range []struct {
		name       string
		vols       []Volume
		rootDevice string
		want       string // volume ID, "" for none
	}{
		{"root device named", []Volume{vol("data", true, "s", "/dev/vdb"), vol("root", true, "s", "/dev/vdb2"), vol("boot", false, "s", "/dev/sdc")}, "/dev/sdc", "boot"},
		{"root device without /dev/", []Volume{vol("boot", true, "s", "/dev/vda")}, "vda", "boot"},
		{"virtio fallback", []Volume{vol("data", true, "s", "/dev/vdb"), vol("boot", true, "s", "/dev/vda")}, "", "boot"},
		{"scsi fallback", []Volume{vol("boot", true, "s", "/dev/sda")}, "", "boot"},
		{"ide fallback (BootVolumeOf: none)", []Volume{vol("boot", true, "s", "/dev/hda")}, "", "boot"},
		{"xen fallback (BootVolumeOf: none)", []Volume{vol("boot", true, "s", "/dev/xvda")}, "", "boot"},
		{"not bootable (BootVolumeOf: found)", []Volume{vol("data", false, "s", "/dev/vda")}, "", ""},
		{"other server", []Volume{vol("boot", true, "t", "/dev/vda")}, "", ""},
		{"root named, not attached", []Volume{vol("boot", true, "s", "/dev/vda")}, "/dev/sda", ""},
		{"no device (attaching)", []Volume{vol("boot", true, "s", "")}, "", ""},
	} {
		got, ok := BootVolume(c.vols, "s", c.rootDevice)
		if got.ID != c.want || ok != (c.want != "") {
			t.Errorf("%s: got %q %v, want %q", c.name, got.ID, ok, c.want)
		}
	}
}
