package nova

import (
	"fmt"
	"sort"
	"strings"
)

// The keys Nova reads. There is deliberately no image property for the
// secret security mode: hardware.py get_tpm_secret_security_constraint reads
// the flavor only (rebuild is refused, so an image property would lock the
// mode in).
const (
	FlavorTPMVersion        = "hw:tpm_version"
	FlavorTPMModel          = "hw:tpm_model"
	FlavorTPMSecretSecurity = "hw:tpm_secret_security"
	ImageTPMVersion         = "hw_tpm_version"
	ImageTPMModel           = "hw_tpm_model"
)

// Allowed values, in Nova's order (objects/fields.py TPMVersion.ALL,
// TPMModel.ALL; extra_specs/hw.py for the secret security enum). The order
// matters: it is printed in Nova's messages.
var (
	TPMVersions       = []string{"1.2", "2.0"}
	TPMModels         = []string{"tpm-tis", "tpm-crb"}
	SecretSecurities  = []string{string(SecretUser), string(SecretHost), string(SecretDeployment)}
	DefaultModel      = "tpm-tis"
	DefaultSecSecMode = SecretUser
)

// Flavor is the part of a flavor Nova's vTPM rules read.
type Flavor struct {
	Name       string
	ExtraSpecs map[string]string
}

// Image is the part of an image Nova's vTPM rules read.
type Image struct {
	Name       string
	Properties map[string]string
}

// IsVTPMFlavorKey reports whether an extra spec belongs to the vTPM request.
func IsVTPMFlavorKey(k string) bool {
	return k == FlavorTPMVersion || k == FlavorTPMModel || k == FlavorTPMSecretSecurity
}

// IsVTPMImageKey reports whether an image property belongs to the vTPM
// request (hw_tpm_secret_security is included: Nova ignores it, we warn).
func IsVTPMImageKey(k string) bool {
	return k == ImageTPMVersion || k == ImageTPMModel || k == "hw_tpm_secret_security"
}

// ParseKeyValue splits "key=value" as the openstack client's --property
// does: at the first '='. The key must be non-empty and free of spaces;
// the value may be empty and may contain '='.
func ParseKeyValue(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("%q is not KEY=VALUE", s)
	}
	if k == "" || strings.ContainsAny(k, " \t\r\n") {
		return "", "", fmt.Errorf("%q: key must be non-empty and contain no spaces", s)
	}
	return k, v, nil
}

// ParseKeyValues parses repeated KEY=VALUE arguments into a map; a key
// given twice is an error, since silently keeping one would hide a typo.
func ParseKeyValues(args []string) (map[string]string, error) {
	out := make(map[string]string, len(args))
	for _, a := range args {
		k, v, err := ParseKeyValue(a)
		if err != nil {
			return nil, err
		}
		if old, dup := out[k]; dup && old != v {
			return nil, fmt.Errorf("%s given twice (%q and %q)", k, old, v)
		}
		out[k] = v
	}
	return out, nil
}

// VTPMKeys returns the vTPM-related entries of a property or spec map,
// sorted by key, for display.
func VTPMKeys(m map[string]string, isKey func(string) bool) [][2]string {
	var out [][2]string
	for k, v := range m {
		if isKey(k) {
			out = append(out, [2]string{k, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
