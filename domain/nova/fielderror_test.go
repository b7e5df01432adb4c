package nova

import (
	"errors"
	"testing"
)

// TestFieldErrorNamedByCaller: the validations say which field is wrong,
// and the same error reads in a command's flags or a plan file's keys.
// Before, nova said --tpm-version and --secret-security to every caller,
// plan files included.
func TestFieldErrorNamedByCaller(t *testing.T) {
	flags := func(f Field) string {
		return map[Field]string{FieldTPMVersion: "--tpm-version", FieldTPMModel: "--tpm-model", FieldSecretSecurity: "--secret-security", FieldWindows: "--windows"}[f]
	}
	keys := func(f Field) string { return string(f) + ":" }
	for _, c := range []struct {
		name       string
		err        error
		field      Field
		flag, plan string
	}{
		{"version", ValidateTPM("3.0", ""), FieldTPMVersion,
			`invalid --tpm-version "3.0" (choose 1.2 or 2.0)`, `invalid tpm_version: "3.0" (choose 1.2 or 2.0)`},
		{"model", ValidateTPM("2.0", "tpm-xyz"), FieldTPMModel,
			`invalid --tpm-model "tpm-xyz" (choose tpm-tis or tpm-crb)`, `invalid tpm_model: "tpm-xyz" (choose tpm-tis or tpm-crb)`},
		{"pair", ValidateTPM("1.2", "tpm-crb"), FieldTPMModel,
			"--tpm-model tpm-crb with --tpm-version 1.2: Nova refuses it (TPM model CRB is only valid with TPM version 2.0.)",
			"tpm_model: tpm-crb with tpm_version: 1.2: Nova refuses it (TPM model CRB is only valid with TPM version 2.0.)"},
		{"mode", ValidateFlavorRequest(FlavorRequest{SecretSecurity: "vault"}, Gazpacho), FieldSecretSecurity,
			`invalid --secret-security "vault" (choose user, host, deployment)`, `invalid secret_security: "vault" (choose user, host, deployment)`},
		{"mode release", ValidateFlavorRequest(FlavorRequest{SecretSecurity: "host"}, Zed), FieldSecretSecurity,
			"--secret-security needs Nova 2026.1 (Gazpacho) or later; this cloud runs Zed (nova 26), which refuses hw:tpm_secret_security as an unknown extra spec",
			"secret_security: needs Nova 2026.1 (Gazpacho) or later; this cloud runs Zed (nova 26), which refuses hw:tpm_secret_security as an unknown extra spec"},
		{"windows", planImageSetErr(nil, ImageRequest{Windows: true, TPMVersion: "1.2"}), FieldWindows,
			"--windows needs TPM 2.0 (Windows 11 requires it; BitLocker on Windows Server needs 2.0 with SHA-256 PCR banks)",
			"windows: needs TPM 2.0 (Windows 11 requires it; BitLocker on Windows Server needs 2.0 with SHA-256 PCR banks)"},
		// Before: "image set needs --tpm-version (or --windows)" to every
		// caller, a RequestError with a flag in it.
		{"version missing", planImageSetErr(nil, ImageRequest{TPMModel: "tpm-crb"}), FieldTPMVersion,
			"--tpm-version is required without the Windows profile (which sets TPM 2.0)",
			"tpm_version: is required without the Windows profile (which sets TPM 2.0)"},
		{"set model too", planImageSetErr(map[string]string{"hw_tpm_model": "tpm-crb"}, ImageRequest{TPMVersion: "1.2"}), FieldTPMModel,
			"resulting image would be refused by Nova: TPM model CRB is only valid with TPM version 2.0. (set --tpm-model too)",
			"resulting image would be refused by Nova: TPM model CRB is only valid with TPM version 2.0. (set tpm_model: too)"},
	} {
		var fe *FieldError
		if !errors.As(c.err, &fe) || fe.Field != c.field {
			t.Errorf("%s: %v, want a FieldError for %s", c.name, c.err, c.field)
			continue
		}
		if got := fe.Message(flags); got != c.flag {
			t.Errorf("%s flags:\n got %s\nwant %s", c.name, got, c.flag)
		}
		if got := fe.Message(keys); got != c.plan {
			t.Errorf("%s keys:\n got %s\nwant %s", c.name, got, c.plan)
		}
	}
	if err := ValidateTPM("2.0", "tpm-crb"); err != nil {
		t.Errorf("2.0 + crb: %v", err)
	}
}

func planImageSetErr(props map[string]string, req ImageRequest) error {
	_, _, err := PlanImageSet(props, req)
	return err
}
