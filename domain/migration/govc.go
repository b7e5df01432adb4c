package migration

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// GovcVM is what a govc JSON output says about a VM's vTPM and firmware.
// encoding/json matches keys case-insensitively, so one struct reads both
// govc < 0.31 (PascalCase) and later (camelCase) output.
type GovcVM struct {
	Name string
	// VCenter is the vCenter the file was taken from, as the caller says
	// (govc's JSON does not), for MoRefs repeat across vCenters.
	VCenter      string
	MoRef        string
	BIOSUUID     string
	InstanceUUID string
	Firmware     string
	SecureBoot   *bool
	GuestID      string
	GuestFull    string
	VCPUs        int
	MemoryMiB    int
	DiskMiB      int
	HWVersion    int
	VTPM         bool
	Evidence     string
	// Template: config.template; a template is no VM to migrate (the
	// vCenter import and RVTools skip them too).
	Template bool
}

type govcDevice struct {
	Key        int                        `json:"key"`
	Type       string                     `json:"type"`
	DeviceInfo *struct{ Label string }    `json:"deviceInfo"`
	EKCert     json.RawMessage            `json:"endorsementKeyCertificate"`
	EKCSR      json.RawMessage            `json:"endorsementKeyCertificateSigningRequest"`
	Capacity   int64                      `json:"capacityInBytes"`
	CapacityKB int64                      `json:"capacityInKB"`
	Backing    *struct{ FileName string } `json:"backing"`
}

type govcVMInfo struct {
	VirtualMachines []struct {
		Name   string                 `json:"name"`
		Self   struct{ Value string } `json:"self"`
		Config *struct {
			UUID         string `json:"uuid"`
			InstanceUUID string `json:"instanceUuid"`
			Firmware     string `json:"firmware"`
			GuestID      string `json:"guestId"`
			GuestFull    string `json:"guestFullName"`
			Version      string `json:"version"`
			Template     bool   `json:"template"`
			BootOptions  *struct {
				EfiSecureBootEnabled *bool `json:"efiSecureBootEnabled"`
			} `json:"bootOptions"`
			Hardware struct {
				NumCPU   int          `json:"numCPU"`
				MemoryMB int          `json:"memoryMB"`
				Device   []govcDevice `json:"device"`
			} `json:"hardware"`
			KeyID *struct{ KeyID string } `json:"keyId"`
		} `json:"config"`
		Summary struct {
			Config struct {
				TpmPresent *bool `json:"tpmPresent"`
			} `json:"config"`
		} `json:"summary"`
		Guest *struct {
			GuestFullName string `json:"guestFullName"`
		} `json:"guest"`
	} `json:"virtualMachines"`
}

var vcsimTPMLabel = regexp.MustCompile(`^tpm-\d+$`)

// tpmDevice names the evidence for a vTPM among devices, "" when none:
// a typed VirtualTPM (device.info), the real vCenter label or key, the EK
// certificate fields, or vcsim's tpm-N label.
func tpmDevice(devs []govcDevice) string {
	for _, d := range devs {
		label := ""
		if d.DeviceInfo != nil {
			label = d.DeviceInfo.Label
		}
		switch {
		case d.Type == "VirtualTPM":
			return fmt.Sprintf("device %d type VirtualTPM", d.Key)
		case label == "Virtual TPM":
			return fmt.Sprintf("device %d labelled Virtual TPM", d.Key)
		case len(d.EKCert) > 0 || len(d.EKCSR) > 0:
			return fmt.Sprintf("device %d with an endorsement key certificate", d.Key)
		case d.Key == 11000 && label != "":
			return "device key 11000 (vCenter's vTPM key)"
		case vcsimTPMLabel.MatchString(label):
			return fmt.Sprintf("device %d labelled %s (vcsim)", d.Key, label)
		}
	}
	return ""
}

// UnnamedVMError is govc output about one VM (device.info,
// object.collect) given without the VM's name, which it does not hold:
// the caller words how to name it (Message).
type UnnamedVMError struct {
	File   string
	Output string // the govc command: device.info, object.collect
}

func (e *UnnamedVMError) Error() string { return e.Message("VMNAME=" + e.File) }

// Message words the error with how, the caller's way to give the file
// with the VM's name.
func (e *UnnamedVMError) Message(how string) string {
	return fmt.Sprintf("%s: govc %s output names no VM: pass it as %s", e.File, e.Output, how)
}

// ParseGovc reads one govc JSON file: `vm.info -json` (any number of VMs),
// or, for the VM named by vmName, `device.info -json` or
// `object.collect -json` (without vmName: an *UnnamedVMError). It
// returns the VMs found.
func ParseGovc(data []byte, vmName, file string) ([]GovcVM, error) {
	trim := strings.TrimSpace(string(data))
	switch {
	case strings.HasPrefix(trim, "["):
		return parseObjectCollect(data, vmName, file)
	case !strings.HasPrefix(trim, "{"):
		return nil, fmt.Errorf("%s: not govc JSON (expected an object or an array)", file)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if hasKey(probe, "devices") {
		if vmName == "" {
			return nil, &UnnamedVMError{File: file, Output: "device.info"}
		}
		var di struct{ Devices []govcDevice }
		if err := json.Unmarshal(data, &di); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		ev := tpmDevice(di.Devices)
		return []GovcVM{{Name: vmName, VTPM: ev != "", Evidence: evidenceOr(ev, "device.info: no VirtualTPM device")}}, nil
	}
	if !hasKey(probe, "virtualmachines") {
		return nil, fmt.Errorf("%s: neither vm.info (virtualMachines) nor device.info (devices) output", file)
	}
	var info govcVMInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	var out []GovcVM
	for _, v := range info.VirtualMachines {
		g := GovcVM{Name: v.Name, MoRef: v.Self.Value}
		if c := v.Config; c != nil {
			g.BIOSUUID, g.InstanceUUID, g.Firmware, g.GuestID, g.GuestFull = c.UUID, c.InstanceUUID, strings.ToLower(c.Firmware), c.GuestID, c.GuestFull
			g.VCPUs, g.MemoryMiB, g.HWVersion = c.Hardware.NumCPU, c.Hardware.MemoryMB, digits(c.Version)
			g.Template = c.Template
			if c.BootOptions != nil && c.BootOptions.EfiSecureBootEnabled != nil {
				sb := *c.BootOptions.EfiSecureBootEnabled
				g.SecureBoot = &sb
			} else if g.Firmware != "" {
				f := false // absent pointer = false (omitempty)
				g.SecureBoot = &f
			}
			for _, d := range c.Hardware.Device {
				switch {
				case d.Capacity > 0 && d.Backing != nil && strings.HasSuffix(d.Backing.FileName, ".vmdk"):
					g.DiskMiB += int(d.Capacity >> 20)
				case d.CapacityKB > 0 && d.Backing != nil && strings.HasSuffix(d.Backing.FileName, ".vmdk"):
					g.DiskMiB += int(d.CapacityKB >> 10)
				}
			}
			g.Evidence = tpmDevice(c.Hardware.Device)
			if g.Evidence == "" && c.KeyID != nil && c.KeyID.KeyID != "" {
				g.Evidence = "" // an encrypted home alone does not prove a vTPM
			}
		}
		if v.Guest != nil && v.Guest.GuestFullName != "" {
			g.GuestFull = v.Guest.GuestFullName
		}
		if tp := v.Summary.Config.TpmPresent; tp != nil && *tp {
			g.Evidence = "summary.config.tpmPresent"
		}
		g.VTPM = g.Evidence != ""
		if !g.VTPM {
			g.Evidence = "govc vm.info: no vTPM device, tpmPresent not set"
		}
		out = append(out, g)
	}
	return out, nil
}

func parseObjectCollect(data []byte, vmName, file string) ([]GovcVM, error) {
	if vmName == "" {
		return nil, &UnnamedVMError{File: file, Output: "object.collect"}
	}
	var props []struct {
		Name string          `json:"name"`
		Val  json.RawMessage `json:"val"`
	}
	if err := json.Unmarshal(data, &props); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	g := GovcVM{Name: vmName}
	for _, p := range props {
		switch strings.ToLower(p.Name) {
		case "config.firmware":
			json.Unmarshal(p.Val, &g.Firmware)
		case "config.bootoptions":
			var b struct {
				EfiSecureBootEnabled *bool `json:"efiSecureBootEnabled"`
			}
			json.Unmarshal(p.Val, &b)
			g.SecureBoot = b.EfiSecureBootEnabled
		case "config.guestid":
			json.Unmarshal(p.Val, &g.GuestID)
		case "config.hardware.numcpu":
			json.Unmarshal(p.Val, &g.VCPUs)
		case "config.hardware.memorymb":
			json.Unmarshal(p.Val, &g.MemoryMiB)
		case "summary.config.tpmpresent":
			var b bool
			if json.Unmarshal(p.Val, &b) == nil && b {
				g.Evidence = "summary.config.tpmPresent"
			}
		case "summary.config":
			var sc struct {
				TpmPresent *bool `json:"tpmPresent"`
			}
			if json.Unmarshal(p.Val, &sc) == nil && sc.TpmPresent != nil && *sc.TpmPresent {
				g.Evidence = "summary.config.tpmPresent"
			}
		case "config.hardware.device":
			var devs []govcDevice
			if json.Unmarshal(p.Val, &devs) == nil {
				if ev := tpmDevice(devs); ev != "" {
					g.Evidence = ev
				}
			}
		}
	}
	g.VTPM = g.Evidence != ""
	if !g.VTPM {
		g.Evidence = "object.collect: no vTPM property or device"
	}
	return []GovcVM{g}, nil
}

func hasKey(m map[string]json.RawMessage, lower string) bool {
	for k := range m {
		if strings.ToLower(k) == lower {
			return true
		}
	}
	return false
}

func evidenceOr(ev, def string) string {
	if ev != "" {
		return ev
	}
	return def
}
