package vtpmsecret

import (
	"fmt"
	"sync"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// auditGuest runs one guest's checks in the order they print. It stops
// where nothing is left to check: at CheckProject (the secret's project
// was not listed), CheckSecretProject or a failed CheckSecretExists (no
// secret where Nova looks).
func auditGuest(f Facts, g Guest, secs []Secret, now time.Time) GuestResult {
	gr := GuestResult{Guest: g, Cannot: shared.cannot(f.Release, g.Mode), Operations: shared.operations(f.Release, g.Mode)}
	want := expectedProject(f, g)
	if want == "" || !f.Audited[want] {
		gr.NotAudited = true
		gr.Findings = []Finding{checkProject(f, g, want)}
		return gr
	}
	inProject, elsewhere := splitByProject(secs, want)
	if len(inProject) == 0 && len(elsewhere) > 0 {
		gr.SecretID = elsewhere[0].ID
		gr.Findings = []Finding{checkSecretProject(f, elsewhere[0], want)}
		return gr
	}
	gr.Findings = []Finding{checkSecretExists(f, g, inProject, want)}
	if len(inProject) == 0 {
		return gr
	}
	// With duplicates, the first stands for all: SECRET-UNIQUE already
	// failed, and only the domain's XML knows which one Nova uses.
	s := inProject[0]
	gr.SecretID = s.ID
	gr.Findings = append(gr.Findings, checkSecretOwner(f, g, s), checkSecretState(s, now), checkOwnerValid(f, s.CreatorID, want), checkSecretACL(s))
	return gr
}

// expectedProject is where Nova stores the guest's secret: the booting
// user's project, or the service project in deployment mode.
func expectedProject(f Facts, g Guest) string {
	if g.Mode == nova.SecretDeployment {
		return f.ServiceProject
	}
	return g.ProjectID
}

// checkProject is the one finding of a guest whose secret's project was
// not audited (want "": Nova's service project is unknown). A skip, not
// a failure: the secret may well be there, unseen. Its Hint is what the
// user could give: a wider scope, or the service project's name.
func checkProject(f Facts, g Guest, want string) Finding {
	deployment := g.Mode == nova.SecretDeployment
	reason, refused := f.NotAuditable[want]
	var why string
	switch {
	case refused && deployment:
		why = fmt.Sprintf("deployment mode: the secret is in Nova's service project %s: %s", f.name(want), reason)
	case refused:
		why = reason.String()
	case deployment:
		why = "deployment mode: the secret is in Nova's service project, which was not audited"
	default:
		return hintedFinding(fd(CheckProject, result.Skip, "", ""), HintScope, appended("not auditable: its project was not audited", " (use %s)"))
	}
	if !deployment {
		return fd(CheckProject, result.Skip, "not auditable: "+why, "")
	}
	remedy := appended("give the auditing user a role in the service project (reader is enough to list)", ", or name the right one with %s")
	remedy.remedy = true
	return hintedFinding(fd(CheckProject, result.Skip, "not auditable: "+why, ""), HintServiceProject, remedy)
}

// splitByProject parts the guest's secrets into those in the project
// Nova fetches from and the rest.
func splitByProject(secs []Secret, want string) (inProject, elsewhere []Secret) {
	for _, s := range secs {
		if s.ProjectID == want {
			inProject = append(inProject, s)
		} else {
			elsewhere = append(elsewhere, s)
		}
	}
	return inProject, elsewhere
}

// checkSecretProject fails a guest whose only secrets are in another
// project: Nova looks for it in want alone, so the guest starts only for
// principals of the other one.
func checkSecretProject(f Facts, s Secret, want string) Finding {
	return fd(CheckSecretProject, result.Fail, fmt.Sprintf("the secret lives in project %s, not in the guest's project %s (created by %s, e.g. an admin who resized the guest)",
		f.name(s.ProjectID), f.name(want), f.userName(s.CreatorID)), "only principals of that project can restart or move the guest; re-create access with an ACL, or have the owner resize")
}

// checkSecretExists wants exactly one secret in the project Nova fetches
// from: none fails SECRET-EXISTS, several fail SECRET-UNIQUE.
func checkSecretExists(f Facts, g Guest, inProject []Secret, want string) Finding {
	switch {
	case len(inProject) == 0:
		return fd(CheckSecretExists, result.Fail, fmt.Sprintf("no %q in project %s: the guest will not start again (Nova: \"Your vTPM is likely to be unrecoverable.\")", NamePrefix+g.ServerID, f.name(want)),
			"keep the guest running; restore the secret from a Barbican backup before it stops")
	case len(inProject) > 1:
		return fd(CheckSecretUnique, result.Fail, fmt.Sprintf("%d secrets for this guest in project %s; only one is in use", len(inProject), f.name(want)), "find the one in the domain's <encryption secret> (virsh dumpxml) and delete the others")
	}
	return fd(CheckSecretExists, result.Pass, "secret "+inProject[0].ID, "")
}

// checkSecretOwner wants the secret created by the user Nova fetches it
// as (ownerRole): one created by someone else, e.g. an admin who resized
// the guest, may be unreadable to that user.
func checkSecretOwner(f Facts, g Guest, s Secret) Finding {
	owner := g.UserID
	if g.Mode == nova.SecretDeployment {
		owner = f.ServiceUserID
	}
	switch {
	case owner == "" && g.Mode == nova.SecretDeployment:
		const unknown = "Nova's service user is unknown (see nova_service_user"
		return hintedFinding(fd(CheckSecretOwner, result.Skip, "", ""), HintServiceUser, &worded{plain: unknown + ")", before: unknown, format: "; pass %s", after: ")"})
	case owner == "":
		return fd(CheckSecretOwner, result.Skip, "the guest's user is unknown (the server list gave no user_id, as for a server whose cell is down)", "")
	case s.CreatorID != owner:
		return fd(CheckSecretOwner, result.Fail, fmt.Sprintf("owned by %s, not by %s (%s)", f.userName(s.CreatorID), f.userName(owner), ownerRole(g.Mode)),
			"the owner resizes the guest, or grant the right users read access with a Barbican ACL")
	}
	return fd(CheckSecretOwner, result.Pass, "created by "+f.userName(owner), "")
}

func ownerRole(mode nova.SecretMode) string {
	if mode == nova.SecretDeployment {
		return "deployment mode: Nova's service user"
	}
	return "the guest's user"
}

// checkSecretState fails any expiration, however far: Barbican cannot
// clear one, and the guest then loses its vTPM for good.
func checkSecretState(s Secret, now time.Time) Finding {
	switch {
	case s.Type != SecretTypePassphrase || s.Status != SecretStatusActive:
		return fd(CheckSecretState, result.Fail, fmt.Sprintf("type %s, status %s: Nova stores an ACTIVE passphrase", s.Type, s.Status), "")
	case s.Expiration != nil:
		return fd(CheckSecretState, result.Fail, fmt.Sprintf("expires %s (in %s): then Barbican stops returning it and the guest will not start again", s.Expiration.Format(time.RFC3339), humanAge(s.Expiration.Sub(now))),
			"Barbican cannot clear an expiration: keep the guest running and migrate its data to a new vTPM guest before then")
	}
	return fd(CheckSecretState, result.Pass, "ACTIVE passphrase, no expiration", "")
}

// checkOwnerValid wants the secret's creator still able to fetch it: a
// deleted, disabled or role-less owner gets no token in the project, so
// the remedies point at an ACL for the operators.
func checkOwnerValid(f Facts, creator, project string) Finding {
	u, ok := f.Users[creator]
	switch {
	case !ok || u.Unread != "":
		why := "not looked up"
		if ok {
			why = u.Why()
		}
		return fd(CheckOwnerValid, result.Skip, "owner "+creator+": "+why, "")
	case !u.Exists:
		return fd(CheckOwnerValid, result.Fail, "owner "+creator+" no longer exists in Keystone: nobody can create a new token as the owner", "give the guest's operators an ACL on the secret (openstack acl user add) before anything restarts it")
	case !u.Enabled:
		return fd(CheckOwnerValid, result.Fail, "owner "+f.userName(creator)+" is disabled", "re-enable the user, or add an ACL for the operators")
	}
	roles, known := f.Roles[project]
	switch {
	case !known:
		return fd(CheckOwnerValid, result.Skip, "owner "+f.userName(creator)+" exists and is enabled; role assignments in the project could not be read", "")
	case !roles[creator]:
		return fd(CheckOwnerValid, result.Fail, "owner "+f.userName(creator)+" has no role in project "+f.name(project)+" any more", "grant a role back, or add an ACL for the operators")
	}
	return fd(CheckOwnerValid, result.Pass, "owner "+f.userName(creator)+" exists, is enabled, has a role in the project", "")
}

// checkSecretACL warns of a private secret rather than failing: its
// owner can still restart the guest, only the others cannot.
func checkSecretACL(s Secret) Finding {
	switch {
	case s.ProjectAccess == nil && s.ACLError != "":
		return fd(CheckSecretACL, result.Skip, "ACL could not be read: "+s.ACLError, "run the audit again; if it persists, check the key manager's logs")
	case s.ProjectAccess == nil:
		return fd(CheckSecretACL, result.Skip, "ACL not read", "")
	case !*s.ProjectAccess:
		return fd(CheckSecretACL, result.Warn, "project-access=false: only the owner (and project admins or ACL users) can restart, resize or move this guest", "openstack acl delete <secret> to restore project access, or add the operators to the read ACL")
	}
	return fd(CheckSecretACL, result.Pass, "project members can read it (default ACL)", "")
}

// opResizeAcrossDeployment is nova.UnsupportedOperations' name for a
// resize to another mode: a fact of a resize, not of the guest.
const opResizeAcrossDeployment = "resize-across-deployment"

// cannot lists what Nova refuses for the guest (reference §3.3).
// sharedLists hands every guest of one release and mode the same
// read-only lists (capped, so an append copies): at 50,000 guests a
// list each was an eighth of the audit's memory.
type sharedLists struct {
	mu   sync.Mutex
	byRM map[relMode][2][]string
}

type relMode struct {
	rel  nova.Release
	mode nova.SecretMode
}

var shared = sharedLists{byRM: map[relMode][2][]string{}}

func (s *sharedLists) get(rel nova.Release, mode nova.SecretMode) [2][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := relMode{rel, mode}
	l, ok := s.byRM[k]
	if !ok {
		c, o := cannot(rel, mode), operations(rel, mode)
		l = [2][]string{c[:len(c):len(c)], o[:len(o):len(o)]}
		s.byRM[k] = l
	}
	return l
}

func (s *sharedLists) cannot(rel nova.Release, mode nova.SecretMode) []string {
	return s.get(rel, mode)[0]
}
func (s *sharedLists) operations(rel nova.Release, mode nova.SecretMode) []string {
	return s.get(rel, mode)[1]
}

func cannot(rel nova.Release, mode nova.SecretMode) []string {
	var out []string
	for _, op := range nova.UnsupportedOperations(rel, mode) {
		if op.Name != opResizeAcrossDeployment {
			out = append(out, op.Name)
		}
	}
	return out
}

func operations(rel nova.Release, mode nova.SecretMode) []string {
	var out []string
	// Seen live on 2026.1: after a host reboot with resume_guests_state_on_
	// host_boot, deployment-mode guests come back (Nova fetches their secret
	// as its service user) and host-mode ones too; only user mode stays in
	// ERROR.
	if mode == nova.SecretUser {
		out = append(out, "does not resume by itself after a host reboot (no user token to fetch the secret)")
	}
	if mode == nova.SecretUser {
		out = append(out, "an admin whose token is scoped to another project cannot hard-reboot, cold-migrate or even delete it cleanly (Barbican refuses; the server goes to ERROR)")
	}
	out = append(out, "snapshots and backups carry no TPM state: a rebuild or restore gets a blank vTPM (BitLocker recovery)")
	return out
}

// fd is a finding without a hint.
func fd(check CheckID, status result.Status, message, remedy string) Finding {
	return Finding{Check: check, Status: status, Message: message, Remedy: remedy}
}

// hintedFinding is f with hint h, its Message (or Remedy) text.
func hintedFinding(f Finding, h Hint, text *worded) Finding {
	f.Hint, f.hinted = h, text
	if text.remedy {
		f.Remedy = text.plain
	} else {
		f.Message = text.plain
	}
	return f
}
