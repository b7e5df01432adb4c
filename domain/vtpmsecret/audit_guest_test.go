package vtpmsecret

import (
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// guestCases reach every branch of the per-guest checks that TestAudit
// leaves out, each naming the finding it must produce.
func guestCases() []struct {
	name        string
	mutate      func(f *Facts)
	check       CheckID
	status      string
	msg, remedy string
} {
	no, past := false, now.Add(-72*time.Hour)
	deployment := func(f *Facts) {
		f.Release, f.ServiceProject = nova.Gazpacho, "svc"
		setMode(f, 0, nova.SecretDeployment)
		f.Secrets.mut(0).ProjectID, f.Secrets.mut(0).CreatorID = "svc", "nova"
		f.Audited["svc"] = true
		f.Users["nova"] = User{ID: "nova", Name: "nova", Exists: true, Enabled: true}
		f.Roles["svc"] = map[string]bool{"nova": true}
	}
	return []struct {
		name        string
		mutate      func(f *Facts)
		check       CheckID
		status      string
		msg, remedy string
	}{
		{"healthy: the secret", func(f *Facts) {}, "SECRET-EXISTS", "pass", "secret s1", ""},
		{"healthy: its owner", func(f *Facts) {}, "SECRET-OWNER", "pass", "created by alice (alice)", ""},
		{"healthy: its state", func(f *Facts) {}, "SECRET-STATE", "pass", "ACTIVE passphrase, no expiration", ""},
		{"healthy: its ACL", func(f *Facts) {}, "SECRET-ACL", "pass", "default ACL", ""},
		{"project not audited", func(f *Facts) { f.Audited = map[string]bool{} }, "PROJECT", "skip", "not auditable: its project was not audited", ""},
		{"project refused", func(f *Facts) { f.Audited, f.NotAuditable["p1"] = map[string]bool{}, NotAuditable{Kind: TokenRefused} },
			"PROJECT", "skip", "not auditable: Keystone will not scope a token to it (401): the caller has no role in the project", ""},
		{"deployment: service project unknown", func(f *Facts) {
			deployment(f)
			f.ServiceProject = ""
		},
			"PROJECT", "skip", "not auditable: deployment mode: the secret is in Nova's service project, which was not audited", "give the auditing user a role in the service project (reader is enough to list)"},
		{"deployment: service project refused", func(f *Facts) {
			deployment(f)
			f.Audited, f.NotAuditable["svc"], f.ProjectNames = map[string]bool{}, NotAuditable{Kind: ListRefused}, map[string]string{"svc": "service"}
		}, "PROJECT", "skip", "not auditable: deployment mode: the secret is in Nova's service project service (svc): Barbican refuses to list its secrets (403)", "(reader is enough to list)"},
		{"deployment: service user unknown", func(f *Facts) {
			deployment(f)
			f.NovaNamedUsers = []string{"a", "b"}
			f.Secrets.Add(f.Secrets.At(0))
			f.Secrets.mut(1).CreatorID = "other"
		},
			"SECRET-OWNER", "skip", "Nova's service user is unknown (see nova_service_user)", ""},
		{"deployment: a wrong owner", func(f *Facts) { deployment(f); f.ServiceUserID = "nova"; f.Secrets.mut(0).CreatorID = "alice" },
			"SECRET-OWNER", "fail", "owned by alice (alice), not by nova (nova) (deployment mode: Nova's service user)", "Barbican ACL"},
		{"deployment: its owner valid in the service project", func(f *Facts) { deployment(f); f.ServiceUserID = "nova" },
			"OWNER-VALID", "pass", "owner nova (nova) exists", ""},
		{"inactive", func(f *Facts) { f.Secrets.mut(0).Status = "ERROR" }, "SECRET-STATE", "fail", "type passphrase, status ERROR", ""},
		{"expired", func(f *Facts) { f.Secrets.mut(0).Expiration = &past }, "SECRET-STATE", "fail", "expires 2026-11-26T12:00:00Z", "Barbican cannot clear an expiration"},
		{"owner not looked up", func(f *Facts) { delete(f.Users, "alice") }, "OWNER-VALID", "skip", "owner alice: not looked up", ""},
		{"ACL unreadable", func(f *Facts) { f.Secrets.mut(0).ProjectAccess, f.Secrets.mut(0).ACLError = nil, "HTTP 500" },
			"SECRET-ACL", "skip", "ACL could not be read: HTTP 500", "run the audit again"},
		{"private ACL", func(f *Facts) { f.Secrets.mut(0).ProjectAccess = &no }, "SECRET-ACL", "warn", "project-access=false", "openstack acl delete"},
		{"duplicate: the first is checked on", func(f *Facts) { s := f.Secrets.At(0); s.ID, s.Type = "s2", "opaque"; f.Secrets.Add(s) },
			"SECRET-STATE", "pass", "ACTIVE passphrase", ""},
		{"undecided server with a secret: audited as a guest", func(f *Facts) {
			f.Undecided = []nova.UndecidedServer{{Guest: Guest{ServerID: "srv1", Name: "win1", ProjectID: "p1", UserID: "alice", Mode: nova.SecretUser}, Reason: nova.UndecidedImageGone}}
			f.Guests = nova.GuestList{}
		}, "SECRET-EXISTS", "pass", "secret s1", ""},
		// A down cell's partial record has no user_id (compute's fixtures);
		// its secret promotes it to a user-mode guest all the same.
		{"a down cell's guest: its user unknown, not Nova's service user", func(f *Facts) {
			f.Undecided = []nova.UndecidedServer{{Guest: Guest{ServerID: "srv1", ProjectID: "p1", Mode: nova.SecretUser}, Reason: nova.UndecidedCellDown}}
			f.Guests = nova.GuestList{}
		}, "SECRET-OWNER", "skip", "the guest's user is unknown (the server list gave no user_id, as for a server whose cell is down)", ""},
	}
}

func TestAuditGuestChecks(t *testing.T) {
	for _, c := range guestCases() {
		f := baseFacts()
		c.mutate(&f)
		r := Audit(f, now)
		got := finding(r, c.check)
		if string(got.Status) != c.status || !strings.Contains(got.Message, c.msg) || !strings.Contains(got.Remedy, c.remedy) || (c.remedy == "") != (got.Remedy == "") {
			t.Errorf("%s: %s %s %q remedy %q, want %s containing %q, remedy %q", c.name, c.check, got.Status, got.Message, got.Remedy, c.status, c.msg, c.remedy)
		}
	}
}
