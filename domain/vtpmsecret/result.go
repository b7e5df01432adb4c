package vtpmsecret

import (
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// GuestResult is a guest, its secret and the findings.
type GuestResult struct {
	// Result is the guest's verdict: its findings' worst status (pass,
	// warn, fail, skip), the table's result column.
	Result result.Status `json:"result"`
	Guest
	// ProjectName and OwnerName are the project's and the user's names
	// where the audit listed them ("" otherwise).
	ProjectName string    `json:"project_name,omitempty"`
	OwnerName   string    `json:"owner_name,omitempty"`
	SecretID    string    `json:"secret_id,omitempty"`
	Findings    []Finding `json:"findings"`
	Cannot      []string  `json:"cannot"`
	Operations  []string  `json:"operational_notes"`
	// Protection and the secret's consumers: only where the key manager
	// has consumers (API 1.1+).
	Protection Protection `json:"protection,omitempty"`
	Consumers  []Consumer `json:"consumers,omitempty"`
	// NotAudited: the secret's project could not be audited; the one
	// finding (CheckProject, skip) says why.
	NotAudited bool `json:"not_audited,omitempty"`
	// Undecided: why the APIs could not decide this guest's vTPM (its
	// Evidence, then, is what the audit found instead).
	Undecided nova.Undecided `json:"undecided,omitempty"`
	// Unconfirmed: why the APIs' "no vTPM" for this guest was decided
	// from properties as they are now (its Evidence is the secret).
	Unconfirmed nova.Unconfirmed `json:"unconfirmed,omitempty"`
	// EvidenceReason says, for a guest its secret decided, why it is
	// audited as one (in words true for its reason and status).
	EvidenceReason string `json:"evidence_reason,omitempty"`
}

// Failed says whether any check failed.
func (g GuestResult) Failed() bool {
	for _, f := range g.Findings {
		if f.Status == result.Fail {
			return true
		}
	}
	return false
}

// Orphan is a vTPM secret whose guest is gone, or one of several for a
// guest. Live marks a secret whose server still exists: to look at, never
// to delete blindly.
type Orphan struct {
	Secret
	// ProjectName and CreatorName: the names of ProjectID and CreatorID
	// where the audit listed them ("" otherwise), as a guest's are.
	ProjectName string     `json:"project_name,omitempty"`
	CreatorName string     `json:"creator_name,omitempty"`
	Kind        OrphanKind `json:"kind"`
	Live        bool       `json:"server_exists"`
	Reason      string     `json:"reason"`
	// AgeSeconds: how long before the audit the secret was created; a
	// table shows it as AgeText ("67d").
	AgeSeconds int64 `json:"age_seconds"`
	// Region is the other region whose Nova has its server, when the key
	// manager is shared by several regions ("": this one's, or none).
	Region string `json:"region,omitempty"`
}

// AgeText is the orphan's age as tables show it: "45m", "30h", "67d".
func (o Orphan) AgeText() string { return humanAge(time.Duration(o.AgeSeconds) * time.Second) }

// OrphanKind says why a secret is an orphan: what a cleanup may do.
type OrphanKind string

const (
	// OrphanGone: its instance no longer exists (the one kind a cleanup
	// plan deletes).
	OrphanGone OrphanKind = "instance-gone"
	// OrphanDuplicate: one of several secrets of an existing guest.
	OrphanDuplicate OrphanKind = "duplicate"
	// OrphanLive: its server exists but asks for no (visible) vTPM, or
	// is another region's guest (Region: a key manager regions share).
	OrphanLive OrphanKind = "server-exists"
	// OrphanUndetermined: its instance is not among the servers read, but
	// that read cannot prove it gone (another project's server, a down
	// cell, a failed list): never an orphan, never deleted on this.
	OrphanUndetermined OrphanKind = "undetermined"
)

// Summary is the machine-readable last line.
type Summary struct {
	Guests       int `json:"guests"`
	Secrets      int `json:"secrets"`
	OK           int `json:"ok"`
	Failed       int `json:"failed"`
	Orphans      int `json:"orphans"`
	NotAuditable int `json:"not_auditable"`
	// Undetermined counts the secrets whose instance the audit could
	// neither find nor prove gone (kind undetermined).
	Undetermined int `json:"undetermined"`
	// Consumers counts the guests by protection (key-manager API 1.1+).
	Consumers *ConsumerCounts `json:"consumers,omitempty"`
}

// ResultSchema names the JSON of `secrets audit`. Version 2: an orphan's
// age is age_seconds, a number (version 1: "age", a string such as "67d").
const ResultSchema = "vtpmctl.secrets-audit/2"

// Result is the whole audit, and the JSON of `secrets audit`.
type Result struct {
	Schema string `json:"schema"`
	nova.ReleaseContext
	Summary      Summary                 `json:"summary"`
	Guests       []GuestResult           `json:"guests"`
	NotAuditable map[string]NotAuditable `json:"not_auditable"`
	// Orphans are shown (and fail the audit) only where the caller asks
	// for them.
	Orphans []Orphan `json:"orphans,omitempty"`
	// SkippedSecrets: vTPM-named secrets not audited, with why.
	SkippedSecrets []string `json:"skipped_secrets,omitempty"`
	// ServiceUser: who deployment-mode secrets must belong to, and how
	// vtpmctl knows (only when deployment-mode guests exist).
	ServiceUser *ServiceUser `json:"nova_service_user,omitempty"`
	// KeyManagerAPI is Barbican's microversion when consumers were read.
	KeyManagerAPI string `json:"key_manager_api,omitempty"`
	// ConsumersNotRead says why consumers were not read (the key
	// manager's versions document failed).
	ConsumersNotRead string `json:"consumers_not_read,omitempty"`
	// Undecided counts, per reason, the servers whose vTPM nothing
	// decided: neither the APIs nor a secret named for them.
	Undecided map[nova.Undecided]int `json:"undecided,omitempty"`
	// Warnings say what the audit could not see.
	Warnings []string `json:"warnings,omitempty"`
	// Incomplete says why the reads behind the audit were partial (a
	// down cell, a truncated project list, a failed list; the scope when
	// narrower than every project): what it could not conclude is
	// undetermined, never absent.
	Incomplete completeness.Gaps `json:"incomplete,omitempty"`
	// PushBack is how often the cloud asked the run to slow down.
	PushBack PushBack `json:"server_pushback"`
	// cleanupPlan is the caller's name for HintCleanupPlan (Name).
	cleanupPlan string
	// walk, names and only: a streamed result's guests are audited again
	// on each walk (AuditStreamed), worded with names and kept by only.
	walk  *auditor
	names func(Hint) string
	only  result.Filter
}

// PushBack is the cloud's 429s and 503s over the run, and how far they
// cut the requests in flight (Concurrency of At most, the --concurrency
// asked for). Every answer is still read: a refusal is retried.
type PushBack struct {
	Answers     int `json:"answers"`
	Concurrency int `json:"lowest_concurrency"`
	AtMost      int `json:"concurrency"`
}

// ServiceUser is Nova's service user as the audit found it.
type ServiceUser struct {
	ID       string `json:"id,omitempty"`
	Evidence string `json:"evidence"`
	// Source is how the audit knows it. Not in the JSON: the Evidence
	// says it in words.
	Source ServiceUserSource `json:"-"`
	hinted *worded
}
