package hostcheck

import (
	"encoding/xml"
	"fmt"
)

// Hypervisor is what the checks ask libvirt. LiveHypervisor talks to a
// real libvirtd; tests may hand in recorded answers.
type Hypervisor interface {
	// Versions of libvirt and of the hypervisor (QEMU).
	Versions() (libvirtV, qemuV Version, err error)
	// DomainCapabilities for virtType on x86_64; machine "" is the default.
	DomainCapabilities(virtType, machine string) (string, error)
	// Domains returns the XML of every defined domain.
	Domains() ([]string, error)
	// Secrets returns the XML of every libvirt secret.
	Secrets() ([]string, error)
	// Hostname is libvirt's host name: Nova's hypervisor_hostname and the
	// name of the host's Placement resource provider.
	Hostname() (string, error)
	Close() error
}

// Version is libvirt's major*1e6+minor*1e3+micro.
type Version uint32

func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v/1000000, v/1000%1000, v%1000)
}

// V builds a Version.
func V(major, minor, micro uint32) Version { return Version(major*1000000 + minor*1000 + micro) }

// DomCaps is the part of <domainCapabilities> the checks read.
type DomCaps struct {
	OS struct {
		Loader struct {
			Supported string    `xml:"supported,attr"`
			Values    []string  `xml:"value"`
			Enums     []capEnum `xml:"enum"`
		} `xml:"loader"`
	} `xml:"os"`
	TPM *struct {
		Supported string    `xml:"supported,attr"`
		Enums     []capEnum `xml:"enum"`
	} `xml:"devices>tpm"`
}

// SecureBoot: the domain's firmware enforces Secure Boot.
func (d *Domain) SecureBoot() bool {
	if d.OS.Loader.Secure == "yes" {
		return true
	}
	for _, f := range d.OS.Features {
		if f.Name == "secure-boot" && f.Enabled == "yes" {
			return true
		}
	}
	return false
}

// ExtraSpec reads one flavor extra spec from the domain's Nova metadata.
func (d *Domain) ExtraSpec(name string) (string, bool) {
	for _, e := range d.ExtraSpecs {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

type capEnum struct {
	Name   string   `xml:"name,attr"`
	Values []string `xml:"value"`
}

// ParseDomCaps parses domain capabilities XML.
func ParseDomCaps(s string) (*DomCaps, error) {
	var d DomCaps
	if err := xml.Unmarshal([]byte(s), &d); err != nil {
		return nil, fmt.Errorf("domain capabilities: %w", err)
	}
	return &d, nil
}

func enum(es []capEnum, name string) ([]string, bool) {
	for _, e := range es {
		if e.Name == name {
			return e.Values, true
		}
	}
	return nil, false
}

// TPMEnum returns a <tpm> enum ("model", "backendModel", "backendVersion")
// and whether libvirt reported it at all.
func (d *DomCaps) TPMEnum(name string) ([]string, bool) {
	if d.TPM == nil {
		return nil, false
	}
	return enum(d.TPM.Enums, name)
}

// SecureBootLoaders lists loaders when libvirt offers secure='yes'.
func (d *DomCaps) SecureBootLoaders() []string {
	if v, _ := enum(d.OS.Loader.Enums, "secure"); contains(v, "yes") {
		return d.OS.Loader.Values
	}
	return nil
}

// Domain is the part of a domain XML the checks read.
type Domain struct {
	UUID string `xml:"uuid"`
	Name string `xml:"name"`
	TPMs []struct {
		Model   string `xml:"model,attr"`
		Backend struct {
			Type       string `xml:"type,attr"`
			Version    string `xml:"version,attr"`
			Encryption *struct {
				Secret string `xml:"secret,attr"`
			} `xml:"encryption"`
		} `xml:"backend"`
	} `xml:"devices>tpm"`
	// OS: the firmware; NVRAM is the guest's own UEFI variable file
	// (libvirt copies the template there at its first start).
	OS struct {
		Firmware string `xml:"firmware,attr"`
		Loader   struct {
			Secure string `xml:"secure,attr"`
			Type   string `xml:"type,attr"`
			Path   string `xml:",chardata"`
		} `xml:"loader"`
		NVRAM struct {
			Template string `xml:"template,attr"`
			Path     string `xml:",chardata"`
		} `xml:"nvram"`
		// Features: libvirt's firmware auto-selection (Nova 2026.1+
		// asks for secure-boot here instead of <loader secure='yes'>).
		Features []struct {
			Enabled string `xml:"enabled,attr"`
			Name    string `xml:"name,attr"`
		} `xml:"firmware>feature"`
	} `xml:"os"`
	// ExtraSpecs: the flavor's, as Nova writes them into the domain's
	// <nova:instance> metadata (schema 1.1, from 2026.1).
	ExtraSpecs []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:",chardata"`
	} `xml:"metadata>instance>flavor>extraSpecs>extraSpec"`
}

// ParseDomain parses a domain XML.
func ParseDomain(s string) (*Domain, error) {
	var d Domain
	if err := xml.Unmarshal([]byte(s), &d); err != nil {
		return nil, fmt.Errorf("domain XML: %w", err)
	}
	return &d, nil
}

// Secret is a libvirt secret's metadata (never its value).
type Secret struct {
	Ephemeral string `xml:"ephemeral,attr"`
	Private   string `xml:"private,attr"`
	UUID      string `xml:"uuid"`
	Usage     struct {
		Type string `xml:"type,attr"`
		Name string `xml:"name"`
	} `xml:"usage"`
}

// ParseSecret parses a secret XML.
func ParseSecret(s string) (*Secret, error) {
	var x Secret
	if err := xml.Unmarshal([]byte(s), &x); err != nil {
		return nil, fmt.Errorf("secret XML: %w", err)
	}
	return &x, nil
}

func contains(l []string, v string) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}
