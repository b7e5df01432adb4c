package vtpmsecret

import (
	"sort"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/completeness"
)

// Facts is everything the audit gathered from the clouds' APIs.
type Facts struct {
	Release nova.Release
	Guests  nova.GuestList
	Secrets SecretTable
	// Audited lists the projects whose secrets were listed; NotAuditable
	// those that could not be, with the reason.
	Audited      map[string]bool
	NotAuditable map[string]NotAuditable
	// CompleteServers: the server list covers every project (all_tenants),
	// every cell answered and nothing was left out (ServerGaps is empty),
	// so a secret whose instance is absent from it is an orphan candidate
	// (the cleanup plan still asks Nova for that UUID before a delete).
	CompleteServers bool
	// ServerGaps say why the server list cannot prove an instance gone.
	ServerGaps completeness.Gaps
	// Regions are the other regions whose catalog lists this key
	// manager's endpoint (none: it is this region's alone), each with the
	// servers its Nova listed: a secret's instance one of them lists is
	// that region's live guest, and one no list holds is gone only when
	// every one of them is complete too (see RegionServers).
	Regions []RegionServers
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
}

// AuditedGuests are the guests Audit audits: the inventory's, and the
// undecided or unconfirmed servers a secret names (the gatherer looks
// up their users too).
func (f Facts) AuditedGuests() nova.GuestList {
	promoted, _, _ := f.promote(f.named())
	return f.Guests.With(promoted...)
}

// HasDeployment says whether any of gs keeps its secret in deployment
// mode (Nova's service user's, in Nova's service project).
func HasDeployment(gs nova.GuestList) bool {
	for _, g := range gs.All() {
		if g.Mode == nova.SecretDeployment {
			return true
		}
	}
	return false
}

// UnreadGaps are the reads of single objects that failed: each secret's
// ACL, each user. A check they feed is skipped, and the run says why.
func UnreadGaps(f Facts) completeness.Gaps {
	var gs completeness.Gaps
	for _, s := range f.Secrets.All() {
		if s.ACLError != "" {
			kind := completeness.Failed
			if s.ACLRefused {
				kind = completeness.Scope
			}
			gs.Add(kind, "the ACL of secret %s could not be read (%s skipped): %s", s.ID, CheckSecretACL, s.ACLError)
		}
	}
	ids := make([]string, 0, len(f.Users))
	for id := range f.Users {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		switch u := f.Users[id]; u.Unread {
		case "", UnreadNoIdentity:
		case UnreadForbidden:
			gs.Add(completeness.Scope, "user %s: %s", id, u.Why())
		default:
			gs.Add(completeness.Failed, "user %s could not be read: %s", id, u.Why())
		}
	}
	return gs
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
