package vtpmsecret

import "github.com/vtpmctl/vtpmctl/internal/result"

// CheckID names one check of a guest's secret; its JSON and table form
// is the ID itself.
type CheckID string

// The checks, in the order a guest's findings list them.
const (
	// CheckProject: the secret's project could not be audited (a skip,
	// the guest's one finding).
	CheckProject        CheckID = "PROJECT"
	CheckSecretProject  CheckID = "SECRET-PROJECT"
	CheckSecretExists   CheckID = "SECRET-EXISTS"
	CheckSecretUnique   CheckID = "SECRET-UNIQUE"
	CheckSecretOwner    CheckID = "SECRET-OWNER"
	CheckSecretState    CheckID = "SECRET-STATE"
	CheckOwnerValid     CheckID = "OWNER-VALID"
	CheckSecretACL      CheckID = "SECRET-ACL"
	CheckSecretConsumer CheckID = "SECRET-CONSUMER"
	// CheckProjectAuditable is the case a project not auditable is, on
	// its own, where results list projects (JUnit, the report page).
	CheckProjectAuditable CheckID = "PROJECT-AUDITABLE"
)

// Finding is one check of one guest.
type Finding struct {
	Check   CheckID       `json:"check"`
	Status  result.Status `json:"status"`
	Message string        `json:"message"`
	Remedy  string        `json:"remedy,omitempty"`
	// Hint is what the user could give to settle this finding
	// (Result.Name words it with the caller's name for it). Not in the
	// JSON: the words are.
	Hint   Hint `json:"-"`
	hinted *worded
}

// Hint is an input the user could give the audit (or whatever runs it).
// The audit names no flag: its texts read as if the caller had none,
// and Result.Name puts in the caller's names for those it has.
type Hint string

const (
	// HintScope: audit the guest's project too.
	HintScope Hint = "scope"
	// HintServiceProject: name Nova's service project.
	HintServiceProject Hint = "service_project"
	// HintServiceUser: give Nova's service user's ID.
	HintServiceUser Hint = "service_user"
	// HintCleanupPlan: print the cleanup plan (the table's orphans say
	// it is there).
	HintCleanupPlan Hint = "cleanup_plan"
	// HintProtect: register Nova's consumer on the secret (the command
	// that does it).
	HintProtect Hint = "protect"
)

// ServiceUserSource is how the audit knows Nova's service user.
type ServiceUserSource string

const (
	// ServiceUserGiven: the caller gave it (its Evidence says "given by
	// the caller", or the caller's name for it).
	ServiceUserGiven ServiceUserSource = "given"
	// ServiceUserNovaNamed: the one Keystone user named "nova".
	ServiceUserNovaNamed ServiceUserSource = "nova_named"
	// ServiceUserOneCreator: the one creator of the service project's
	// deployment-mode secrets (which then cannot catch a wrong owner).
	ServiceUserOneCreator ServiceUserSource = "one_creator"
	// ServiceUserUnknown: none of those; the audit does not know it.
	ServiceUserUnknown ServiceUserSource = "unknown"
)
