package nova

// SecretMode is a vTPM secret security mode (hw:tpm_secret_security,
// Nova 2026.1+): who owns the Barbican secret and where libvirt keeps it.
//
// The type catches a plain string where a mode belongs: a string
// variable passed, assigned or compared as a mode does not compile
// without a SecretMode(s) conversion, which marks where text from a user,
// a file or an API becomes a mode (check it with Known). It cannot catch
// a literal: an untyped constant converts implicitly, so
// m == "deploymnet" compiles and is always false. Code names the
// constants below instead; TestNoModeLiterals fails on a mode compared
// with a literal anywhere in the module.
type SecretMode string

// The modes Nova knows (nova/api/validation/extra_specs/hw.py), in its order.
const (
	// SecretUser: the secret belongs to the instance's owner; nothing is
	// kept on the host, so the guest cannot restart without its owner's token.
	SecretUser SecretMode = "user"
	// SecretHost: the owner's secret, also kept as a persistent libvirt
	// secret on the host (host reboot and, 2026.1+, live migration work).
	SecretHost SecretMode = "host"
	// SecretDeployment: the secret belongs to Nova's service user.
	SecretDeployment SecretMode = "deployment"
)

// SecretModes lists the known modes in Nova's order (printed in its messages).
var SecretModes = []SecretMode{SecretUser, SecretHost, SecretDeployment}

// Known reports whether Nova knows the mode.
func (m SecretMode) Known() bool {
	for _, k := range SecretModes {
		if m == k {
			return true
		}
	}
	return false
}

// Trait is the Placement trait a host reports for the mode.
func (m SecretMode) Trait() string {
	return "COMPUTE_SECURITY_TPM_SECRET_SECURITY_" + upper(string(m))
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
