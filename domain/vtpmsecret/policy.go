package vtpmsecret

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// CreatePolicy is what Barbican's default policy asks of a token that
// creates a secret (secrets:post). Nova creates a user- or host-mode
// guest's secret with the requesting user's token, so a user Barbican
// refuses gets a guest in ERROR, not an API error.
//
// Barbican's legacy rule "rule:admin_or_creator" was what every release
// evaluated until oslo.policy 6 made enforce_new_defaults the default;
// from then (2026.1) only the new rule "role:member" holds. Seen live: a
// member-only user is refused on Zed and on 2025.1 (Barbican 20,
// oslo.policy 4.5), and allowed on 2026.1 (Barbican 23, oslo.policy 6).
// A cloud's own policy file may differ; the rule named here is the
// default's.
func CreatePolicy(rel nova.Release) (rule string, anyOf []string) {
	if rel >= nova.Gazpacho {
		return "role:member", []string{"member"}
	}
	return "rule:admin_or_creator", []string{"admin", "creator"}
}

// CanCreateSecrets says whether a token with roles may create secrets
// under the release's default policy, and if not, why, in one sentence.
func CanCreateSecrets(rel nova.Release, roles []string) (bool, string) {
	rule, anyOf := CreatePolicy(rel)
	for _, r := range roles {
		for _, want := range anyOf {
			if strings.EqualFold(r, want) {
				return true, ""
			}
		}
	}
	have := "no role"
	if len(roles) > 0 {
		have = "roles " + strings.Join(roles, ", ")
	}
	return false, fmt.Sprintf("Barbican's default secrets:post policy on %s is %q and this token has %s: nova-compute's secret create is refused (\"Secret creation attempt not allowed - please review your user/project privileges\")",
		rel, rule, have)
}

// MaxRetriesMessage is the fault of a server whose build failed on every
// host tried (nova/conductor: MaxRetriesExceeded), as Nova writes it.
const MaxRetriesMessage = "Exceeded maximum number of retries. Exhausted all hosts available for retrying build failures for instance <server-uuid>."

// PredictSecretCreate adds to Nova's decision what the key manager will
// do: a user- or host-mode vTPM's secret is created with the caller's
// token, so a caller Barbican refuses gets a guest in ERROR. Deployment
// mode uses Nova's service user and is not affected.
func PredictSecretCreate(d nova.Decision, roles []string) nova.Decision {
	if d.Error != nil || !d.VTPM || d.SecretSecurity == nova.SecretDeployment {
		return d
	}
	ok, why := CanCreateSecrets(d.Release, roles)
	if ok {
		return d
	}
	d.Error = &nova.Refusal{Kind: nova.KindSecretCreateRefused, Exception: "MaxRetriesExceeded", Stage: nova.StageBuild, HTTPStatus: 500,
		Message: MaxRetriesMessage}
	d.Notes = append(d.Notes, why+"; give the user the "+strings.Join(createRoles(d.Release), " or ")+" role in the project")
	return d
}

func createRoles(rel nova.Release) []string {
	_, anyOf := CreatePolicy(rel)
	return anyOf
}
