package cinder

import "github.com/vtpmctl/vtpmctl/domain/nova"

// Boot is the part of the volume Nova reads when a server boots from it
// (nova.DecideVolume holds Nova's rules for it).
func (v Volume) Boot() nova.BootVolume {
	return nova.BootVolume{ID: v.ID, Name: v.Name, Bootable: bool(v.Bootable), ImageMetadata: v.ImageMetadata}
}
