package nova

import (
	"fmt"
	"sort"
	"strings"
)

// Decision is what Nova does with one image+flavor pair on one release.
type Decision struct {
	Release Release `json:"-"`
	// VTPM is true when the guest gets an emulated TPM.
	VTPM        bool   `json:"vtpm"`
	Version     string `json:"version,omitempty"`
	VersionFrom string `json:"version_from,omitempty"` // flavor, image
	Model       string `json:"model,omitempty"`
	ModelFrom   string `json:"model_from,omitempty"` // flavor, image, default
	// SecretSecurity is the Barbican/libvirt secret mode; empty on releases
	// before 2026.1, where every guest behaves like "user".
	SecretSecurity     SecretMode `json:"secret_security,omitempty"`
	SecretSecurityFrom string     `json:"secret_security_from,omitempty"` // flavor, default
	RequiredTraits     []string   `json:"required_traits"`
	// Unsupported lists the server operations Nova refuses for this guest.
	Unsupported []Operation `json:"unsupported_operations"`
	// Error is Nova's refusal, nil when the boot would be accepted.
	Error *Refusal `json:"error,omitempty"`
	// Notes are the silent cases: what Nova ignores without a word.
	Notes []string `json:"notes"`
}

// Operation is a server action Nova refuses for a vTPM guest.
type Operation struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// Decide applies Nova's rules, in Nova's order:
//  1. the API builds ImageMeta; an invalid hw_tpm_* value is a 400
//     (compute/api.py _get_image_meta_obj);
//  2. the scheduler (2026.1+: first the tpm_secret_security_filter) calls
//     hardware.get_vtpm_constraint, version before model, each key merged on
//     its own, then the secret security mode;
//  3. the scheduler requires the traits of the release.
func Decide(flavor Flavor, image Image, rel Release) Decision {
	d := Decision{Release: rel, RequiredTraits: []string{}, Unsupported: []Operation{}, Notes: []string{}}
	fs, ip := flavor.ExtraSpecs, image.Properties
	if fs == nil {
		fs = map[string]string{}
	}
	if ip == nil {
		ip = map[string]string{}
	}
	if !rel.SupportsVTPM() {
		if hasAny(fs, FlavorTPMVersion, FlavorTPMModel, FlavorTPMSecretSecurity) || hasAny(ip, ImageTPMVersion, ImageTPMModel) {
			d.note("Nova %s has no emulated TPM (it arrived in Victoria, nova 22): hw:tpm_*/hw_tpm_* are ignored", rel.Long())
		}
		return d
	}
	if _, ok := ip["hw_tpm_secret_security"]; ok {
		d.note("image property hw_tpm_secret_security is not read by Nova; only the flavor extra spec hw:tpm_secret_security sets the mode")
	}
	if e := imageMetaError(ip); e != nil {
		d.Error = e
		return d
	}
	// Extra-spec validation only runs when the spec is written at >= 2.86;
	// a value stored below that reaches the scheduler unchanged.
	for _, k := range []string{FlavorTPMVersion, FlavorTPMModel, FlavorTPMSecretSecurity} {
		if v, ok := fs[k]; ok {
			if e := ValidateExtraSpec(k, v, rel); e != nil {
				d.note("flavor %s=%s could only have been stored below microversion 2.86; at 2.86 or later the API refuses it: %s", k, v, e.Message)
			}
		}
	}

	version, vFrom, err := unique("tpm_version", flavor, image)
	if err != nil {
		d.Error = err
		return d
	}
	if version == "" {
		if m, _, _ := rawValue("tpm_model", flavor, image); m != "" {
			d.note("a TPM model (%s) without a TPM version requests nothing: Nova adds no vTPM and says nothing", m)
		}
		if s := fs[FlavorTPMSecretSecurity]; s != "" && rel.HasSecretSecurity() {
			d.note("hw:tpm_secret_security=%s is ignored without a vTPM request", s)
		}
		return d
	}
	if !contains(TPMVersions, version) {
		d.Error = invalid(KindInvalidVersion, fmt.Sprintf("Invalid TPM version %s. Allowed values: %s.", pyRepr(version), strings.Join(TPMVersions, ", ")))
		return d
	}
	model, mFrom, err := unique("tpm_model", flavor, image)
	if err != nil {
		d.Error = err
		return d
	}
	if model == "" {
		model, mFrom = DefaultModel, "default"
	} else if !contains(TPMModels, model) {
		d.Error = invalid(KindInvalidModel, fmt.Sprintf("Invalid TPM model %s. Allowed values: %s.", pyRepr(model), strings.Join(TPMModels, ", ")))
		return d
	} else if model == "tpm-crb" && version != "2.0" {
		d.Error = invalid(KindCRBNeedsTPM2, "TPM model CRB is only valid with TPM version 2.0.")
		return d
	}
	d.VTPM, d.Version, d.VersionFrom, d.Model, d.ModelFrom = true, version, vFrom, model, mFrom

	if rel.HasSecretSecurity() {
		mode, from := SecretMode(fs[FlavorTPMSecretSecurity]), "flavor"
		if mode == "" {
			mode, from = DefaultSecSecMode, "default"
		}
		if !mode.Known() {
			d.VTPM, d.Version, d.VersionFrom, d.Model, d.ModelFrom = false, "", "", "", ""
			d.Error = &Refusal{Kind: KindUnsupportedSecretSec, Exception: ExceptionNoValidHost,
				Message:    fmt.Sprintf("No valid host was found. Scheduling failed: TPM secret security '%s' is not supported.", mode),
				Stage:      StageScheduling,
				HTTPStatus: 500}
			return d
		}
		d.SecretSecurity, d.SecretSecurityFrom = mode, from
		if mode == SecretDeployment {
			d.note("deployment mode: the secret is owned by Nova's service user; nova-compute needs a working [service_user] section")
		}
	} else if s := fs[FlavorTPMSecretSecurity]; s != "" {
		d.note("hw:tpm_secret_security=%s needs Nova 2026.1 (Gazpacho); %s ignores it and every guest behaves as mode user", s, rel.Long())
	}
	d.RequiredTraits = RequiredTraits(rel, d.Version, d.Model, d.SecretSecurity)
	if rel.RequiresOwnerNova() {
		d.note("the %s scheduler also requires OWNER_NOVA on the host once every nova-compute is %s (each reports it from its own upgrade)", rel, rel)
	}
	d.Unsupported = UnsupportedOperations(rel, d.SecretSecurity)
	return d
}

// RequiredTraits are the Placement traits a host must report to receive
// this guest (scheduler/utils.py _translate_vtpm_request and, from 2026.1,
// request_filter.py tpm_secret_security_filter as root_required).
func RequiredTraits(rel Release, version, model string, mode SecretMode) []string {
	t := []string{"COMPUTE_SECURITY_TPM_2_0"}
	if version == "1.2" {
		t[0] = "COMPUTE_SECURITY_TPM_1_2"
	}
	if rel.RequiresModelTrait() {
		if model == "tpm-crb" {
			t = append(t, "COMPUTE_SECURITY_TPM_CRB")
		} else {
			t = append(t, "COMPUTE_SECURITY_TPM_TIS")
		}
	}
	if rel.HasSecretSecurity() && mode != "" {
		t = append(t, mode.Trait())
	}
	sort.Strings(t)
	return t
}

// UnsupportedOperations lists what compute/api.py refuses for a vTPM guest
// (reject_vtpm_instances, and from 2026.1 reject_legacy_vtpm_live_migration).
func UnsupportedOperations(rel Release, mode SecretMode) []Operation {
	var ops []Operation
	for _, op := range []string{"rebuild", "shelve", "rescue", "evacuate", "live-migration"} {
		if op == "live-migration" && rel.HostModeLiveMigration() && mode == SecretHost {
			continue
		}
		ops = append(ops, Operation{Name: op, Message: fmt.Sprintf(
			"Operation '%s' not supported for vTPM-enabled instance (<server-uuid>).", op)})
	}
	if rel.HasSecretSecurity() {
		ops = append(ops, Operation{Name: "resize-across-deployment",
			Message: "Resize between 'deployment' TPM secret security and other TPM secret security modes is not supported."})
	}
	return ops
}

// ValidateExtraSpec is the flavor extra-spec API's check at microversion
// >= 2.86 (api/validation/extra_specs). It returns nil for keys it does
// not own.
func ValidateExtraSpec(key, value string, rel Release) *Refusal {
	var allowed []string
	switch key {
	case FlavorTPMVersion:
		allowed = TPMVersions
	case FlavorTPMModel:
		allowed = TPMModels
	case FlavorTPMSecretSecurity:
		allowed = SecretSecurities
	default:
		return nil
	}
	// hw is a registered namespace, so a key the release does not know is
	// refused as unknown rather than stored.
	if !rel.SupportsVTPM() || (key == FlavorTPMSecretSecurity && !rel.HasSecretSecurity()) {
		return &Refusal{Kind: KindUnknownExtraSpec, Exception: ExceptionValidationError, Stage: StageFlavorUpdate, HTTPStatus: 400,
			Message: fmt.Sprintf("Validation failed; extra spec '%s' does not appear to be a valid extra spec.", key)}
	}
	if contains(allowed, value) {
		return nil
	}
	return &Refusal{Kind: KindInvalidExtraSpec, Exception: ExceptionValidationError, Stage: StageFlavorUpdate, HTTPStatus: 400,
		Message: fmt.Sprintf("Validation failed; '%s' is not one of: %s.", value, strings.Join(allowed, ", "))}
}

// imageMetaError mirrors ImageMetaProps: hw_tpm_version and hw_tpm_model
// are enum fields, so an unknown value fails ImageMeta.from_dict and the
// create is a 400 — even when the image asks for no vTPM.
func imageMetaError(ip map[string]string) *Refusal {
	for _, k := range []string{ImageTPMModel, ImageTPMVersion} {
		allowed := TPMModels
		if k == ImageTPMVersion {
			allowed = TPMVersions
		}
		if v, ok := ip[k]; ok && !contains(allowed, v) {
			return &Refusal{Kind: KindInvalidImageMetadata, Exception: ExceptionInvalidRequest, Stage: StageServerCreate, HTTPStatus: 400,
				Message: fmt.Sprintf("Invalid image metadata. Error: Field value %s is invalid", v)}
		}
	}
	return nil
}

func invalid(kind ErrorKind, msg string) *Refusal {
	return &Refusal{Kind: kind, Exception: ExceptionInvalid, Message: msg, Stage: StageScheduling, HTTPStatus: 400}
}

// rawValue reads hw:<key> and hw_<key>; Nova treats "" as unset (truthiness).
func rawValue(key string, f Flavor, i Image) (value, from string, both [2]string) {
	fv, iv := f.ExtraSpecs["hw:"+key], i.Properties["hw_"+key]
	switch {
	case fv != "":
		return fv, "flavor", [2]string{fv, iv}
	case iv != "":
		return iv, "image", [2]string{fv, iv}
	}
	return "", "", [2]string{fv, iv}
}

// unique is hardware.py _get_unique_flavor_image_meta: both set and
// different is a conflict, otherwise the flavor wins over the image.
func unique(key string, f Flavor, i Image) (string, string, *Refusal) {
	v, from, both := rawValue(key, f, i)
	if both[0] != "" && both[1] != "" && both[0] != both[1] {
		return "", "", conflictError(key, f.Name, both[0], i.Name, both[1])
	}
	return v, from, nil
}

func hasAny(m map[string]string, keys ...string) bool {
	for _, k := range keys {
		if m[k] != "" {
			return true
		}
	}
	return false
}

func (d *Decision) note(format string, args ...any) {
	d.Notes = append(d.Notes, fmt.Sprintf(format, args...))
}
