package barbican

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/completeness"
	"github.com/vtpmctl/vtpmctl/internal/result"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// NamePrefix is how Nova names every vTPM secret (nova/crypto.py).
const NamePrefix = "vTPM secret for instance "

// Guest is a server Nova gives a vTPM (found by nova.ListVTPMGuests).
type Guest = nova.VTPMGuest

// Secret is a vTPM secret's metadata.
type Secret struct {
	ID         string     `json:"id"`
	Ref        string     `json:"secret_ref"`
	InstanceID string     `json:"instance_id"`
	ProjectID  string     `json:"project_id"`
	CreatorID  string     `json:"creator_id"`
	Type       string     `json:"secret_type"`
	Status     string     `json:"status"`
	Created    time.Time  `json:"created"`
	Expiration *time.Time `json:"expiration,omitempty"`
	// ProjectAccess is the ACL's project-access; nil when not read.
	ProjectAccess *bool `json:"project_access,omitempty"`
	// ACLError says why the ACL of this one secret could not be read.
	ACLError string `json:"acl_error,omitempty"`
	// ACLRefused: the ACL read was refused (403): the caller's scope,
	// not a failed read.
	ACLRefused bool `json:"-"`
	// Consumers as listed at key-manager API 1.1; nil when not read.
	Consumers []Consumer `json:"consumers,omitempty"`
}

// User is a Keystone user as the audit knows it.
type User struct {
	ID, Name string
	Exists   bool
	Enabled  bool
	Unknown  string // why it could not be looked up ("" when it was)
}

// Facts is everything the audit gathered from the clouds' APIs.
type Facts struct {
	Release nova.Release
	Guests  []Guest
	Secrets []Secret
	// Audited lists the projects whose secrets were listed; NotAuditable
	// those that could not be, with the reason.
	Audited      map[string]bool
	NotAuditable map[string]string
	// CompleteServers: the server list covers every project (all_tenants),
	// every cell answered and nothing was left out (ServerGaps is empty),
	// so a secret whose instance is absent from it is an orphan candidate
	// (the cleanup plan still asks Nova for that UUID before a delete).
	CompleteServers bool
	// ServerGaps say why the server list cannot prove an instance gone.
	ServerGaps completeness.Gaps
	// ProjectGaps say why the audited projects may not be all that were
	// asked for (Keystone truncated its project list).
	ProjectGaps completeness.Gaps
	// ReadGaps are single reads that failed (a secret's ACL, a project's
	// role assignments, a user): the checks they feed are skipped.
	ReadGaps completeness.Gaps
	// OtherServers exist but ask for no (visible) vTPM: a secret of one of
	// them is never an orphan to delete.
	OtherServers map[string]nova.OtherServer
	// Undecided are servers (also in OtherServers) whose image properties
	// at boot could not be read: one with a vTPM secret named for it is
	// audited as a guest (nova.EvidenceSecret), the rest are counted.
	Undecided []nova.UndecidedServer
	// Unconfirmed are servers (also in OtherServers) decided "no vTPM"
	// from properties as they are now: one with a vTPM secret named for
	// it is audited as a guest (nova.EvidenceSecret), never as a live
	// server's orphan; the rest are decided, and not counted.
	Unconfirmed    []nova.UnconfirmedServer
	ServiceUserID  string // Nova's service user, for deployment mode
	ServiceProject string
	// NovaNamedUsers: Keystone users named "nova", looked up when
	// deployment-mode guests exist and no service user was given.
	NovaNamedUsers []string
	Users          map[string]User
	// Roles holds, per project, the users with any role there; a project
	// missing from it could not be read.
	Roles        map[string]map[string]bool
	ProjectNames map[string]string
	// SkippedSecrets are vTPM-named secrets whose metadata could not be
	// trusted (a secret_ref that is no secret's URL), one line each.
	SkippedSecrets []string
	// API is the key manager's microversion; consumers were read when it
	// has them.
	API API
	// Flags are the caller's flag names for the hints (empty: the hint
	// says what is missing, naming no flag).
	Flags Flags
}

// Finding is one check of one guest.
type Finding struct {
	Check   string        `json:"check"`
	Status  result.Status `json:"status"`
	Message string        `json:"message"`
	Remedy  string        `json:"remedy,omitempty"`
}

// GuestResult is a guest, its secret and the findings.
type GuestResult struct {
	Guest
	// ProjectName and OwnerName are the project's and the user's names
	// where the audit listed them ("" otherwise).
	ProjectName string    `json:"project_name,omitempty"`
	OwnerName   string    `json:"owner_name,omitempty"`
	SecretID    string    `json:"secret_id,omitempty"`
	Findings    []Finding `json:"findings"`
	Cannot      []string  `json:"cannot"`
	Operations  []string  `json:"operational_notes"`
	// Protection (protected, unprotected, mismatched) and the secret's
	// consumers: only where the key manager has consumers (API 1.1+).
	Protection string     `json:"protection,omitempty"`
	Consumers  []Consumer `json:"consumers,omitempty"`
	// NotAudited: the secret's project could not be audited; the one
	// finding (PROJECT, skip) says why.
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
	Kind   OrphanKind    `json:"kind"`
	Live   bool          `json:"server_exists"`
	Reason string        `json:"reason"`
	Age    time.Duration `json:"-"`
	AgeStr string        `json:"age"`
}

// OrphanKind says why a secret is an orphan: what a cleanup may do.
type OrphanKind string

const (
	// OrphanGone: its instance no longer exists (the one kind a cleanup
	// plan deletes).
	OrphanGone OrphanKind = "instance-gone"
	// OrphanDuplicate: one of several secrets of an existing guest.
	OrphanDuplicate OrphanKind = "duplicate"
	// OrphanLive: its server exists but asks for no (visible) vTPM.
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

// ResultSchema names the JSON of `secrets audit`.
const ResultSchema = "vtpmctl.secrets-audit/1"

// Result is the whole audit, and the JSON of `secrets audit`.
type Result struct {
	Schema string `json:"schema"`
	nova.ReleaseContext
	Summary      Summary           `json:"summary"`
	Guests       []GuestResult     `json:"guests"`
	NotAuditable map[string]string `json:"not_auditable"`
	// Orphans are shown (and fail the audit) with --include-orphans only.
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
}

// ServiceUser is Nova's service user as the audit found it.
type ServiceUser struct {
	ID       string `json:"id,omitempty"`
	Evidence string `json:"evidence"`
}

// resolveServiceUser finds Nova's service user without asking where the
// cloud tells: --nova-service-user, else the one Keystone user named
// "nova", else the one creator of every deployment-mode secret in the
// service project (which then cannot catch a wrong owner, and says so).
func resolveServiceUser(f Facts) *ServiceUser {
	if !hasDeployment(f.Guests) {
		return nil
	}
	if f.ServiceUserID != "" {
		evidence := f.Flags.ServiceUser
		if evidence == "" {
			evidence = "given by the caller"
		}
		return &ServiceUser{ID: f.ServiceUserID, Evidence: evidence}
	}
	if len(f.NovaNamedUsers) == 1 {
		return &ServiceUser{ID: f.NovaNamedUsers[0], Evidence: `the Keystone user named "nova" (the [service_user] username of the usual deployment tools` + f.Flags.pass("; pass %s if yours differs") + ")"}
	}
	deployment := map[string]bool{}
	for _, g := range f.Guests {
		if g.Mode == nova.SecretDeployment {
			deployment[g.ServerID] = true
		}
	}
	creators := map[string]int{}
	for _, s := range f.Secrets {
		if deployment[s.InstanceID] && s.ProjectID == f.ServiceProject {
			creators[s.CreatorID]++
		}
	}
	why := fmt.Sprintf("%d Keystone users are named \"nova\"", len(f.NovaNamedUsers))
	if len(creators) == 1 {
		for id, n := range creators {
			return &ServiceUser{ID: id, Evidence: fmt.Sprintf("the creator of all %d deployment-mode secret(s) in the service project (%s): SECRET-OWNER cannot catch a wrong owner this way%s", n, why, f.Flags.pass("; pass %s to check it"))}
		}
	}
	return &ServiceUser{Evidence: fmt.Sprintf("unknown: %s and the service project's deployment-mode secrets have %d creators%s", why, len(creators), f.Flags.pass("; pass %s"))}
}

// Audit matches guests and secrets. It is pure: every API answer is in f.
func Audit(f Facts, now time.Time) Result {
	byInstance := map[string][]Secret{}
	for _, s := range f.Secrets {
		byInstance[s.InstanceID] = append(byInstance[s.InstanceID], s)
	}
	promoted, why, undecided := f.promote()
	f.Guests = append(f.Guests[:len(f.Guests):len(f.Guests)], promoted...)
	res := Result{Undecided: undecided, Warnings: undecidedWarnings(undecided), Schema: ResultSchema, ReleaseContext: nova.ReleaseContext{Release: f.Release}, NotAuditable: map[string]string{}, Guests: []GuestResult{}, Orphans: []Orphan{}, SkippedSecrets: f.SkippedSecrets}
	if res.ServiceUser = resolveServiceUser(f); res.ServiceUser != nil {
		f.ServiceUserID = res.ServiceUser.ID
	}
	for p, why := range f.NotAuditable {
		res.NotAuditable[p] = why
	}
	known := map[string]bool{}
	for _, g := range f.Guests {
		known[g.ServerID] = true
		gr := auditGuest(f, g, byInstance[g.ServerID], now)
		gr.ProjectName, gr.OwnerName = f.ProjectNames[g.ProjectID], f.Users[g.UserID].Name
		if p, ok := why[g.ServerID]; ok {
			gr.Undecided, gr.Unconfirmed, gr.EvidenceReason = p.undecided, p.unconfirmed, p.words(g.Status)
		}
		res.Guests = append(res.Guests, gr)
		switch {
		case gr.Failed():
			res.Summary.Failed++
		case gr.NotAudited:
		default:
			res.Summary.OK++
		}
	}
	for id, secs := range byInstance {
		other, exists := f.OtherServers[id]
		switch {
		case !known[id] && exists:
			why := "server " + other.Name + " exists but asks for no vTPM (resized away? the secret may still be needed by a pending resize revert)"
			if other.ImageUnknown {
				why = "server " + other.Name + " exists, its image is deleted or not visible: its image properties may request this vTPM — audit it by hand, do not delete"
			}
			for _, s := range secs {
				o := orphan(s, OrphanLive, why, now)
				o.Live = true
				res.Orphans = append(res.Orphans, o)
			}
		case !known[id] && f.CompleteServers:
			for _, s := range secs {
				res.Orphans = append(res.Orphans, orphan(s, OrphanGone, "instance "+id+" no longer exists: it is in no project's server list", now))
			}
		case !known[id]:
			gaps := f.ServerGaps.String()
			if gaps == "" {
				gaps = "not every project's servers were listed"
			}
			why := "instance " + id + " is not among the servers read, which cannot prove it gone (" + gaps + ")"
			for _, s := range secs {
				res.Orphans = append(res.Orphans, orphan(s, OrphanUndetermined, why, now))
			}
		case known[id] && len(secs) > 1:
			for _, s := range secs {
				res.Orphans = append(res.Orphans, orphan(s, OrphanDuplicate, fmt.Sprintf("duplicate: %d secrets for instance %s; Nova uses only the one in the domain's <encryption secret>", len(secs), id), now))
			}
		}
	}
	servers := map[string]string{}
	for id, o := range f.OtherServers {
		servers[id] = o.Name
	}
	for _, g := range f.Guests {
		servers[g.ServerID] = g.Name
	}
	addProtection(f, &res, servers)
	for i := range res.Orphans {
		if o := &res.Orphans[i]; len(o.Consumers) > 0 {
			o.Reason += "; protected by consumer(s) " + consumerList(o.Consumers) + ": remove them first, if you are sure"
		}
	}
	// oldest first; the ID orders secrets created at once (the result is
	// the same on every run)
	sort.Slice(res.Orphans, func(i, j int) bool {
		a, b := res.Orphans[i], res.Orphans[j]
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.ID < b.ID
	})
	res.Summary.Guests, res.Summary.Secrets = len(f.Guests), len(f.Secrets)
	for _, o := range res.Orphans {
		switch {
		case o.Kind == OrphanUndetermined:
			res.Summary.Undetermined++
		case !o.Live:
			res.Summary.Orphans++
		}
	}
	res.Incomplete = append(append(append(res.Incomplete, f.ServerGaps...), f.ProjectGaps...), f.ReadGaps...)
	res.Summary.NotAuditable = len(f.NotAuditable)
	return res
}

func orphan(s Secret, kind OrphanKind, why string, now time.Time) Orphan {
	age := now.Sub(s.Created)
	return Orphan{Secret: s, Kind: kind, Reason: why, Age: age, AgeStr: humanAge(age)}
}

// pass is a hint naming the service-user flag, format holding one %s;
// "" when the caller has no such flag (the rest of the text says what
// is missing).
func (fl Flags) pass(format string) string {
	if fl.ServiceUser == "" {
		return ""
	}
	return fmt.Sprintf(format, fl.ServiceUser)
}

func (f Facts) name(project string) string {
	if n := f.ProjectNames[project]; n != "" {
		return n + " (" + project + ")"
	}
	return project
}

func (f Facts) userName(id string) string {
	if u, ok := f.Users[id]; ok && u.Name != "" {
		return u.Name + " (" + id + ")"
	}
	return id
}

func humanAge(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + humanAge(-d)
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// InstanceOf returns the instance UUID of a Nova vTPM secret name.
func InstanceOf(name string) (string, bool) {
	if !strings.HasPrefix(name, NamePrefix) {
		return "", false
	}
	id := strings.TrimPrefix(name, NamePrefix)
	// Only Nova's own form: anyone may name a secret, and this ID ends up
	// in a cleanup script an admin runs.
	return id, IsUUID(id)
}

// IsUUID says whether s is a UUID in its canonical 8-4-4-4-12 hex form.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
