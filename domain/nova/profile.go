package nova

import (
	"strings"
)

// ImageRequest is what `image set`/`image unset` asks for.
type ImageRequest struct {
	TPMVersion string // "" keeps the image's
	TPMModel   string // "" keeps the image's (or tpm-crb with Windows)
	Windows    bool   // the Windows-ready profile (reference §7)
}

// windowsProfile is set in this order; hw_tpm_* are handled apart because
// the user may override the model.
var windowsProfile = [][2]string{
	{"hw_firmware_type", "uefi"},
	{"hw_machine_type", "q35"},
	{"os_secure_boot", "required"},
	{"os_type", "windows"},
	{"os_distro", "windows"},
}

// WindowsProfileKeys lists the keys the profile sets (vTPM keys included).
func WindowsProfileKeys() []string {
	keys := []string{ImageTPMVersion, ImageTPMModel}
	for _, kv := range windowsProfile {
		keys = append(keys, kv[0])
	}
	return keys
}

// RequestError is a request Nova would refuse; nothing is written when
// one is returned. A value of one field is a FieldError instead, so the
// caller can name the field its own way.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

// PlanImageSet computes the properties to set on an image with props.
// Notes say what the profile changed or kept and why; an error means
// Nova would refuse the resulting image.
func PlanImageSet(props map[string]string, req ImageRequest) (set map[string]string, notes []string, err error) {
	if err := ValidateTPM(req.TPMVersion, req.TPMModel); err != nil {
		return nil, nil, err
	}
	set = map[string]string{}
	if req.Windows {
		if req.TPMVersion == "1.2" {
			return nil, nil, &FieldError{Field: FieldWindows, Value: "true", Reason: "needs TPM 2.0 (Windows 11 requires it; BitLocker on Windows Server needs 2.0 with SHA-256 PCR banks)"}
		}
		set[ImageTPMVersion] = "2.0"
		set[ImageTPMModel] = "tpm-crb"
		if req.TPMModel != "" {
			set[ImageTPMModel] = req.TPMModel
		}
		for _, kv := range windowsProfile {
			set[kv[0]] = kv[1]
		}
		if mt := props["hw_machine_type"]; strings.Contains(mt, "q35") {
			set["hw_machine_type"] = mt // a versioned pc-q35-* is a q35 too
		}
		if props["hw_disk_bus"] == "ide" {
			set["hw_disk_bus"] = "sata"
			notes = append(notes, "hw_disk_bus ide -> sata: the q35 machine type has no IDE bus (use virtio with the virtio-win drivers for speed)")
		} else if b := props["hw_disk_bus"]; b != "" {
			notes = append(notes, "hw_disk_bus "+b+" kept: it works on q35")
		}
		if v := props["hw_vif_model"]; v != "" {
			notes = append(notes, "hw_vif_model "+v+" kept")
		}
		if sb := props["os_secure_boot"]; sb != "" && sb != "required" {
			notes = append(notes, "os_secure_boot "+sb+" -> required: Windows 11 needs Secure Boot")
		}
		if strings.EqualFold(props["hw_firmware_stateless"], "true") {
			notes = append(notes, "warning: hw_firmware_stateless=true keeps no UEFI NVRAM: Secure Boot and BitLocker state are lost on every stop")
		}
	} else {
		if req.TPMVersion == "" {
			// The field, not a flag: image set says --tpm-version, a plan
			// file tpm_version (the caller words it, FieldError.Message).
			return nil, nil, &FieldError{Field: FieldTPMVersion, Reason: "is required without the Windows profile (which sets TPM 2.0)"}
		}
		set[ImageTPMVersion] = req.TPMVersion
		if req.TPMModel != "" {
			set[ImageTPMModel] = req.TPMModel
		}
	}
	// The image alone must be something Nova accepts.
	after := Apply(props, Diff("", "", props, set, nil))
	if d := Decide(Flavor{Name: "(any flavor without hw:tpm_*)"}, Image{Name: "(this image)", Properties: after}, Gazpacho); d.Error != nil {
		return nil, nil, &FieldError{Field: FieldTPMModel, SetToo: true, Reason: "resulting image would be refused by Nova: " + d.Error.Message}
	}
	return set, notes, nil
}

// PlanImageUnset lists the properties `image unset` removes: the vTPM keys,
// and with Windows the profile's keys that still hold the profile's value
// (a value someone else chose is left alone).
func PlanImageUnset(props map[string]string, windows bool) []string {
	unset := []string{ImageTPMVersion, ImageTPMModel, "hw_tpm_secret_security"}
	if windows {
		for _, kv := range windowsProfile {
			v := props[kv[0]]
			if v == kv[1] || (kv[0] == "hw_machine_type" && strings.Contains(v, "q35")) {
				unset = append(unset, kv[0])
			}
		}
	}
	return unset
}
