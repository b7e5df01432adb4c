// Package cinder holds the Block Storage (Cinder v3) API calls vtpmctl
// makes, one small function per request in gophercloud's style, each
// setting the microversion it needs. For a server booted from a volume
// Nova does not read Glance: it builds the instance's image properties
// from the boot volume's volume_image_metadata
// (nova/block_device.py get_image_metadata_from_volume), so that metadata
// is where a volume-backed guest's hw_tpm_* live.
package cinder
