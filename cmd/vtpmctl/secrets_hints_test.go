package main

import (
	"strings"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

// TestSecretsAuditHintsNameItsFlags: the audit names no flag; secrets
// audit names its own where the audit says what the user could give,
// and prints the lines it printed when it passed its flags in.
func TestSecretsAuditHintsNameItsFlags(t *testing.T) {
	yes := true
	facts := func(mode nova.SecretMode, audited bool) vtpmsecret.Facts {
		project := "p1"
		if mode == nova.SecretDeployment {
			project = "svc"
		}
		f := vtpmsecret.Facts{Release: nova.Gazpacho, ServiceProject: "svc", CompleteServers: true,
			Guests:       nova.NewGuestList([]vtpmsecret.Guest{{ServerID: "srv1", ProjectID: "p1", UserID: "alice", Mode: mode}}...),
			Secrets:      vtpmsecret.NewSecretTable([]vtpmsecret.Secret{{ID: "s1", InstanceID: "srv1", ProjectID: project, CreatorID: "alice", Type: "passphrase", Status: "ACTIVE", ProjectAccess: &yes}}...),
			Audited:      map[string]bool{project: audited},
			Users:        map[string]vtpmsecret.User{"alice": {ID: "alice", Name: "alice", Exists: true, Enabled: true}},
			Roles:        map[string]map[string]bool{project: {"alice": true}},
			NotAuditable: map[string]vtpmsecret.NotAuditable{}}
		return f
	}
	disagree := facts(nova.SecretDeployment, true)
	disagree.Guests.Add(vtpmsecret.Guest{ServerID: "srv2", ProjectID: "p1", UserID: "bob", Mode: nova.SecretDeployment})
	disagree.Secrets.Add(vtpmsecret.Secret{ID: "s2", InstanceID: "srv2", ProjectID: "svc", CreatorID: "bob"})
	named := facts(nova.SecretDeployment, true)
	named.NovaNamedUsers = []string{"nova"}
	given := facts(nova.SecretDeployment, true)
	given.ServiceUserID = "alice"
	for _, c := range []struct {
		name  string
		facts vtpmsecret.Facts
		want  []string
	}{
		{"project not audited", facts(nova.SecretUser, false), []string{"its project was not audited (use --all-projects or --project)"}},
		{"service project not audited", facts(nova.SecretDeployment, false), []string{"or name the right one with --nova-service-project"}},
		{"the user named nova", named, []string{"pass --nova-service-user if yours differs)"}},
		{"the one creator", facts(nova.SecretDeployment, true), []string{"SECRET-OWNER cannot catch a wrong owner this way; pass --nova-service-user to check it"}},
		{"creators disagree", disagree, []string{"have 2 creators; pass --nova-service-user", "Nova's service user is unknown (see nova_service_user; pass --nova-service-user)"}},
		{"given", given, []string{"\n--nova-service-user\n"}},
	} {
		r := vtpmsecret.Audit(c.facts, time.Now())
		r.Name(secretsFlag)
		var b strings.Builder
		for _, g := range r.Guests {
			for _, fd := range g.Findings {
				b.WriteString(fd.Message + "\n" + fd.Remedy + "\n")
			}
		}
		if r.ServiceUser != nil {
			b.WriteString(r.ServiceUser.Evidence + "\n")
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, b.String())
			}
		}
	}
}
