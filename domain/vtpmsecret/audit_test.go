package vtpmsecret

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func baseFacts() Facts {
	yes := true
	return Facts{
		Release: nova.Zed,
		Guests:  nova.NewGuestList([]Guest{{ServerID: "srv1", Name: "win1", ProjectID: "p1", UserID: "alice", Mode: "user", Version: "2.0", Model: "tpm-crb"}}...),
		Secrets: NewSecretTable([]Secret{{ID: "s1", Ref: "http://kms/v1/secrets/s1", InstanceID: "srv1", ProjectID: "p1", CreatorID: "alice", Type: "passphrase", Status: "ACTIVE",
			Created: now.Add(-48 * time.Hour), ProjectAccess: &yes}}...),
		Audited:         map[string]bool{"p1": true},
		NotAuditable:    map[string]NotAuditable{},
		CompleteServers: true,
		Users:           map[string]User{"alice": {ID: "alice", Name: "alice", Exists: true, Enabled: true}, "admin": {ID: "admin", Name: "admin", Exists: true, Enabled: true}},
		Roles:           map[string]map[string]bool{"p1": {"alice": true}},
	}
}

func finding(r Result, check CheckID) Finding {
	for _, f := range r.Guests[0].Findings {
		if f.Check == check {
			return f
		}
	}
	return Finding{Check: check, Status: "absent"}
}

func TestAudit(t *testing.T) {
	no := false
	exp := now.Add(30 * 24 * time.Hour)
	cases := []struct {
		name   string
		mutate func(f *Facts)
		check  CheckID
		status string
		msg    string
	}{
		{"healthy", func(f *Facts) {}, "OWNER-VALID", "pass", "exists, is enabled"},
		{"secret missing", func(f *Facts) { f.Secrets = SecretTable{} }, "SECRET-EXISTS", "fail", "will not start again"},
		{"duplicate", func(f *Facts) { s := f.Secrets.At(0); s.ID = "s2"; f.Secrets.Add(s) }, "SECRET-UNIQUE", "fail", "2 secrets"},
		{"in the admin's project after a resize", func(f *Facts) {
			f.Secrets.mut(0).ProjectID, f.Secrets.mut(0).CreatorID = "padmin", "admin"
			f.Audited["padmin"] = true
		}, "SECRET-PROJECT", "fail", "lives in project padmin"},
		{"owned by someone else", func(f *Facts) { f.Secrets.mut(0).CreatorID = "admin" }, "SECRET-OWNER", "fail", "owned by admin (admin), not by alice (alice)"},
		{"expiring", func(f *Facts) { f.Secrets.mut(0).Expiration = &exp }, "SECRET-STATE", "fail", "expires 2026-12-29"},
		{"wrong type", func(f *Facts) { f.Secrets.mut(0).Type = "opaque" }, "SECRET-STATE", "fail", "type opaque"},
		{"owner deleted", func(f *Facts) { f.Users["alice"] = User{ID: "alice"} }, "OWNER-VALID", "fail", "no longer exists"},
		{"owner disabled", func(f *Facts) { f.Users["alice"] = User{ID: "alice", Name: "alice", Exists: true} }, "OWNER-VALID", "fail", "is disabled"},
		{"owner lost her role", func(f *Facts) { f.Roles["p1"] = map[string]bool{} }, "OWNER-VALID", "fail", "no role in project p1"},
		{"roles unreadable", func(f *Facts) { delete(f.Roles, "p1") }, "OWNER-VALID", "skip", "could not be read"},
		{"users unreadable", func(f *Facts) { f.Users["alice"] = User{ID: "alice", Unread: UnreadForbidden} }, "OWNER-VALID", "skip", "no permission"},
		{"user read failed", func(f *Facts) {
			f.Users["alice"] = User{ID: "alice", Unread: UnreadFailed, Detail: "503 after retries"}
		}, "OWNER-VALID", "skip", "owner alice: 503 after retries"},
		{"private ACL", func(f *Facts) { f.Secrets.mut(0).ProjectAccess = &no }, "SECRET-ACL", "warn", "project-access=false"},
		{"ACL not read", func(f *Facts) { f.Secrets.mut(0).ProjectAccess = nil }, "SECRET-ACL", "skip", "not read"},
		{"project not auditable", func(f *Facts) { f.Audited = map[string]bool{}; f.NotAuditable["p1"] = NotAuditable{Kind: ListRefused} }, "PROJECT", "skip", "not auditable: Barbican refuses to list its secrets (403)"},
		{"deployment mode: Nova's service user owns it", func(f *Facts) {
			f.Release, f.ServiceUserID, f.ServiceProject = nova.Gazpacho, "nova", "svc"
			setMode(f, 0, "deployment")
			f.Secrets.mut(0).ProjectID, f.Secrets.mut(0).CreatorID = "svc", "nova"
			f.Audited["svc"] = true
			f.Users["nova"] = User{ID: "nova", Name: "nova", Exists: true, Enabled: true}
			f.Roles["svc"] = map[string]bool{"nova": true}
		}, "SECRET-OWNER", "pass", "created by nova"},
		{"deployment mode, service project not audited", func(f *Facts) { f.Release = nova.Gazpacho; setMode(f, 0, "deployment") }, "PROJECT", "skip", "Nova's service project"},
	}
	for _, c := range cases {
		f := baseFacts()
		c.mutate(&f)
		r := Audit(f, now)
		got := finding(r, c.check)
		if string(got.Status) != c.status || !strings.Contains(got.Message, c.msg) {
			t.Errorf("%s: %s %s %q, want %s containing %q", c.name, c.check, got.Status, got.Message, c.status, c.msg)
		}
		if got.Status == "fail" && (r.Summary.Failed != 1 || got.Remedy == "" && c.check != "SECRET-STATE") {
			t.Errorf("%s: summary %+v remedy %q", c.name, r.Summary, got.Remedy)
		}
	}
}

func TestOrphans(t *testing.T) {
	f := baseFacts()
	f.Secrets.Add(Secret{ID: "s9", InstanceID: "gone", ProjectID: "p1", CreatorID: "alice", Created: now.Add(-90 * 24 * time.Hour)})
	r := Audit(f, now)
	if len(r.Orphans) != 1 || r.Orphans[0].ID != "s9" || r.Orphans[0].AgeSeconds != 90*86400 || r.Orphans[0].AgeText() != "90d" || !strings.Contains(r.Orphans[0].Reason, "no longer exists") {
		t.Errorf("orphans %+v", r.Orphans)
	}
	// Its names where the audit listed them; its age a number of seconds
	// in the JSON, "90d" only in the table.
	f.ProjectNames = map[string]string{"p1": "finance"}
	r = Audit(f, now)
	if o := r.Orphans[0]; o.ProjectName != "finance" || o.CreatorName != "alice" {
		t.Errorf("orphan names: project %q, creator %q", o.ProjectName, o.CreatorName)
	}
	b, _ := json.Marshal(r.Orphans[0])
	var doc map[string]any
	json.Unmarshal(b, &doc)
	if doc["age_seconds"] != float64(90*86400) || doc["age"] != nil || doc["project_name"] != "finance" || doc["creator_name"] != "alice" {
		t.Errorf("orphan JSON: %s", b)
	}
	if rows := r.Table().Subtables[0].Rows[0]; rows.Get("age") != "90d" || rows.Get("project_name") != "finance" || rows.Get("project_id") != "p1" {
		t.Errorf("orphan row: %v", rows)
	}
	// Without every project's servers, an unknown instance may live
	// elsewhere: undetermined, never an orphan.
	f.CompleteServers = false
	if r := Audit(f, now); len(r.Orphans) != 1 || r.Orphans[0].Kind != OrphanUndetermined || r.Summary.Orphans != 0 || r.Summary.Undetermined != 1 {
		t.Errorf("incomplete server list must not claim orphans: %+v %+v", r.Orphans, r.Summary)
	}
}

func TestOperationalFacts(t *testing.T) {
	f := baseFacts()
	f.Release = nova.Gazpacho
	setMode(&f, 0, "host")
	g := Audit(f, now).Guests[0]
	if strings.Contains(strings.Join(g.Cannot, " "), "live-migration") || !strings.Contains(strings.Join(g.Cannot, " "), "evacuate") {
		t.Errorf("host mode on 2026.1 live-migrates but never evacuates: %v", g.Cannot)
	}
	if strings.Contains(strings.Join(g.Operations, " "), "host reboot") {
		t.Errorf("host mode resumes after a host reboot: %v", g.Operations)
	}
	setMode(&f, 0, "deployment")
	if g := Audit(f, now).Guests[0]; strings.Contains(strings.Join(g.Operations, " "), "host reboot") {
		t.Errorf("deployment mode resumes after a host reboot (Nova's service user fetches the secret): %v", g.Operations)
	}
	setMode(&f, 0, "user")
	g = Audit(f, now).Guests[0]
	if !strings.Contains(strings.Join(g.Operations, " "), "does not resume") || !strings.Contains(strings.Join(g.Operations, " "), "snapshots and backups carry no TPM state") {
		t.Errorf("user mode facts: %v", g.Operations)
	}
}

func TestInstanceOf(t *testing.T) {
	if id, ok := InstanceOf("vTPM secret for instance 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"); !ok || id != "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11" {
		t.Error(id, ok)
	}
	for _, bad := range []string{"vTPM secret for instance ", "vTPMXsecret for instance abc", "other", "vTPM secret for instance abc",
		"vTPM secret for instance deadbeef\ntouch /tmp/x #", "vTPM secret for instance 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11\nrm -rf /",
		"vTPM secret for instance 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d1'", "vTPM secret for instance 6f1c52f4x7d39-4c51-9a4f-3a8f0f1a6d11"} {
		if _, ok := InstanceOf(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestLiveServerSecretIsNeverAnOrphan: a secret whose server exists is
// listed for a look, never counted as an orphan nor planned for deletion.
func TestLiveServerSecretIsNeverAnOrphan(t *testing.T) {
	f := baseFacts()
	f.Secrets.Add(Secret{ID: "s7", InstanceID: "srv-img-gone", ProjectID: "p1"}, Secret{ID: "s8", InstanceID: "srv-resized", ProjectID: "p1"})
	f.OtherServers = map[string]nova.OtherServer{"srv-img-gone": {Name: "a", ImageUnknown: true}, "srv-resized": {Name: "b"}}
	r := Audit(f, now)
	if r.Summary.Orphans != 0 || len(r.Orphans) != 2 {
		t.Fatalf("summary %+v orphans %+v", r.Summary, r.Orphans)
	}
	for _, o := range r.Orphans {
		if !o.Live || (o.ID == "s7" && !strings.Contains(o.Reason, "do not delete")) {
			t.Errorf("%+v", o)
		}
	}
}

func TestResolveServiceUser(t *testing.T) {
	dep := []Guest{{ServerID: "s1", Mode: "deployment"}, {ServerID: "s2", Mode: "deployment"}}
	sec := func(inst, creator string) Secret {
		return Secret{InstanceID: inst, CreatorID: creator, ProjectID: "svc"}
	}
	for _, c := range []struct {
		name     string
		f        Facts
		id, says string
		source   ServiceUserSource
	}{
		{"no deployment guest: nothing to say", Facts{Guests: nova.NewGuestList([]Guest{{ServerID: "s1", Mode: "user"}}...)}, "", "", ""},
		{"given wins", Facts{Guests: nova.NewGuestList(dep...), ServiceUserID: "u0", NovaNamedUsers: []string{"u1"}}, "u0", "given by the caller", ServiceUserGiven},
		{"given", Facts{Guests: nova.NewGuestList(dep...), ServiceUserID: "u0"}, "u0", "given by the caller", ServiceUserGiven},
		{"the one user named nova", Facts{Guests: nova.NewGuestList(dep...), NovaNamedUsers: []string{"u1"}, ServiceProject: "svc", Secrets: NewSecretTable([]Secret{sec("s1", "u2")}...)}, "u1", `named "nova"`, ServiceUserNovaNamed},
		{"one creator of every deployment secret", Facts{Guests: nova.NewGuestList(dep...), ServiceProject: "svc", Secrets: NewSecretTable([]Secret{sec("s1", "u2"), sec("s2", "u2")}...)}, "u2", "cannot catch a wrong owner", ServiceUserOneCreator},
		{"creators disagree", Facts{Guests: nova.NewGuestList(dep...), ServiceProject: "svc", Secrets: NewSecretTable([]Secret{sec("s1", "u2"), sec("s2", "u3")}...)}, "", "2 creators", ServiceUserUnknown},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := resolveServiceUser(c.f)
			if c.says == "" {
				if got != nil {
					t.Errorf("got %+v", got)
				}
				return
			}
			if got == nil || got.ID != c.id || !strings.Contains(got.Evidence, c.says) || got.Source != c.source {
				t.Errorf("got %+v", got)
			}
		})
	}
}

// Orphans created at once come in the order of their IDs, whatever the
// order they were listed in: the result is the same on every run (the
// fault matrix found two runs of one audit differing in this order).
func TestOrphansOrderStable(t *testing.T) {
	f := baseFacts()
	for _, id := range []string{"s9", "s3", "s7"} {
		f.Secrets.Add(Secret{ID: id, InstanceID: "gone-" + id, ProjectID: "p1", CreatorID: "alice", Created: now})
	}
	var got []string
	for _, o := range Audit(f, now).Orphans {
		got = append(got, o.ID)
	}
	if strings.Join(got, ",") != "s3,s7,s9" {
		t.Errorf("orphans in order %v", got)
	}
}

// A single read that failed (a secret's ACL, a user) is a partial read:
// the audit says which, and the run fails on it, not a silent skip.
func TestUnreadGaps(t *testing.T) {
	f := baseFacts()
	f.Secrets.mut(0).ProjectAccess, f.Secrets.mut(0).ACLError = nil, "500 Internal Server Error"
	f.Users["bob"] = User{ID: "bob", Unread: UnreadFailed, Detail: "503 after retries"}
	f.Users["carol"] = User{ID: "carol", Unread: UnreadForbidden}
	f.Users["dave"] = User{ID: "dave", Unread: UnreadNoIdentity} // nothing asked: no gap
	refused := f.Secrets.At(0)
	refused.ID, refused.ACLRefused = "s2", true // a 403: the caller's scope
	f.Secrets.Add(refused)
	gs := UnreadGaps(f)
	if len(gs) != 4 || len(gs.Failures()) != 2 || !strings.Contains(gs.String(), "the ACL of secret s1 could not be read") || !strings.Contains(gs.String(), "user bob could not be read") {
		t.Errorf("%v", gs)
	}
}
