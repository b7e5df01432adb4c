package nova

// Firmware is the boot firmware Nova gives a server from its flavor and
// image (libvirt driver): UEFI from the image's hw_firmware_type, the
// Secure Boot policy from the flavor's os:secure_boot or else the image's
// os_secure_boot (hardware.get_secure_boot_constraint).
type Firmware struct {
	UEFI bool
	// SecureBoot is "required", "optional", "disabled" or "" (not asked).
	SecureBoot string
}

// BootFirmware reads what Nova reads; img nil means the image could not
// be read (the caller says so rather than guessing).
func BootFirmware(f Flavor, img Image) Firmware {
	fw := Firmware{UEFI: img.Properties["hw_firmware_type"] == "uefi", SecureBoot: f.ExtraSpecs["os:secure_boot"]}
	if fw.SecureBoot == "" {
		fw.SecureBoot = img.Properties["os_secure_boot"]
	}
	return fw
}
