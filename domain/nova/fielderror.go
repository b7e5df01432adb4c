package nova

import (
	"fmt"
	"strings"
)

// Field is a value of a vTPM request, named apart from how a caller
// spells it: a command's flag (--tpm-version), a plan file's key
// (tpm_version). Errors carry the field; each caller names it.
type Field string

// The fields of an image or flavor request.
const (
	FieldTPMVersion     Field = "tpm_version"
	FieldTPMModel       Field = "tpm_model"
	FieldSecretSecurity Field = "secret_security"
	FieldWindows        Field = "windows" // the Windows-ready image profile
)

// The fields that name a Nova release: the one whose rules a job applies
// (FieldRelease), and the one an upgrade starts from (FieldFromRelease).
const (
	FieldRelease     Field = "nova_release"
	FieldFromRelease Field = "from_release"
)

// FieldError is a request value Nova cannot take; nothing is written when
// one is returned. Choices (an unknown value), With (a pair Nova refuses),
// SetToo (the result is refused unless Field is also given) or Reason
// alone (a value this release or profile refuses) says why.
type FieldError struct {
	Field     Field
	Value     string
	Choices   []string // the values Nova takes
	With      Field    // the other field of a refused pair
	WithValue string
	SetToo    bool   // Reason is Nova's refusal of the result; giving Field fixes it
	Reason    string // Nova's words, or what the release or profile lacks
}

// Message spells the error with name(field) for each field.
func (e *FieldError) Message(name func(Field) string) string {
	switch {
	case len(e.Choices) > 0:
		sep := " or "
		if len(e.Choices) > 2 {
			sep = ", "
		}
		return fmt.Sprintf("invalid %s %q (choose %s)", name(e.Field), e.Value, strings.Join(e.Choices, sep))
	case e.With != "":
		return fmt.Sprintf("%s %s with %s %s: Nova refuses it (%s)", name(e.Field), e.Value, name(e.With), e.WithValue, e.Reason)
	case e.SetToo:
		return fmt.Sprintf("%s (set %s too)", e.Reason, name(e.Field))
	}
	return name(e.Field) + " " + e.Reason
}

// Error names the fields as themselves; a caller with flags or file keys
// uses Message.
func (e *FieldError) Error() string {
	return e.Message(func(f Field) string { return string(f) })
}

// ValidateTPM checks a TPM version and model, each alone and as a pair.
func ValidateTPM(version, model string) error {
	if version != "" && !contains(TPMVersions, version) {
		return &FieldError{Field: FieldTPMVersion, Value: version, Choices: TPMVersions}
	}
	if model != "" && !contains(TPMModels, model) {
		return &FieldError{Field: FieldTPMModel, Value: model, Choices: TPMModels}
	}
	if model == "tpm-crb" && version == "1.2" {
		return &FieldError{Field: FieldTPMModel, Value: model, With: FieldTPMVersion, WithValue: version,
			Reason: "TPM model CRB is only valid with TPM version 2.0."} // Nova's message
	}
	return nil
}
