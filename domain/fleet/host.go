package fleet

import "github.com/vtpmctl/vtpmctl/internal/result"

// Host is one compute node as the APIs see it: the hypervisor list's
// names and service state, and the TPM traits Placement holds for its
// resource provider (app/hosts lists them).
type Host struct {
	// Result is the host's verdict in hosts audit: its checks' worst
	// status (pass, warn, fail, skip); empty elsewhere.
	Result     result.Status `json:"result,omitempty"`
	Host       string        `json:"host"`       // nova-compute service host
	Hypervisor string        `json:"hypervisor"` // hypervisor_hostname = resource provider name
	RPUUID     string        `json:"resource_provider"`
	State      string        `json:"state"`  // up, down
	Status     string        `json:"status"` // enabled, disabled
	Traits     []string      `json:"traits"` // TPM and secure boot traits in Placement
}

// TPMTraits are the traits the fleet audit reads from Placement.
var TPMTraits = []string{
	"COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_CRB",
	"COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER", "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST",
	"COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT", "COMPUTE_SECURITY_UEFI_SECURE_BOOT", "OWNER_NOVA",
}
