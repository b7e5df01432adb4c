package barbican

import (
	"strings"
	"testing"
	"time"
)

// hintFacts are the audits whose findings carry a hint: a user-mode guest
// whose project was not audited, deployment-mode guests whose service
// project was not audited, and deployment-mode guests whose service user
// is known in each of the ways it can be (or is not).
func hintFacts() map[string]Facts {
	out := map[string]Facts{}
	f := baseFacts()
	f.Audited = map[string]bool{}
	out["project not audited"] = f

	dep := func() Facts {
		f := baseFacts()
		f.Guests[0].Mode = "deployment"
		f.ServiceProject = "svc"
		f.Secrets[0].ProjectID = "svc"
		f.Audited = map[string]bool{"svc": true}
		return f
	}
	f = dep()
	f.Audited = map[string]bool{}
	out["service project not audited"] = f
	f = dep()
	f.NotAuditable = map[string]string{"svc": "403"}
	f.Audited = map[string]bool{}
	out["service project refused"] = f
	f = dep()
	f.NovaNamedUsers = []string{"nova"}
	out["the user named nova"] = f
	f = dep()
	out["the one creator"] = f
	f = dep()
	s := f.Secrets[0]
	s.ID, s.CreatorID, s.InstanceID = "s2", "bob", "srv2"
	f.Guests = append(f.Guests, Guest{ServerID: "srv2", ProjectID: "p1", UserID: "bob", Mode: "deployment"})
	f.Secrets = append(f.Secrets, s)
	out["creators disagree"] = f
	f = dep()
	f.ServiceUserID = "alice"
	out["given"] = f
	return out
}

// texts is every word of a result a user reads.
func texts(r Result) string {
	var b strings.Builder
	for _, g := range r.Guests {
		for _, fd := range g.Findings {
			b.WriteString(fd.Message + "\n" + fd.Remedy + "\n")
		}
	}
	if r.ServiceUser != nil {
		b.WriteString(r.ServiceUser.Evidence + "\n")
	}
	return b.String()
}

// TestHintsNameOnlyTheCallersFlags: report has none of secrets audit's
// flags and plan verify only --nova-service-project; their audits must
// not tell the user to pass a flag they do not have (they said "pass
// --nova-service-user" and "use --all-projects or --project" before).
func TestHintsNameOnlyTheCallersFlags(t *testing.T) {
	for _, c := range []struct {
		caller  string
		flags   Flags
		allowed []string
	}{
		{"report", Flags{}, nil},
		{"plan verify", Flags{ServiceProject: "--nova-service-project"}, []string{"--nova-service-project"}},
	} {
		for name, f := range hintFacts() {
			t.Run(c.caller+"/"+name, func(t *testing.T) {
				f.Flags = c.flags
				s := texts(Audit(f, time.Now()))
				for _, a := range c.allowed {
					s = strings.ReplaceAll(s, a, "")
				}
				if strings.Contains(s, "--") {
					t.Errorf("a flag %s does not have:\n%s", c.caller, s)
				}
			})
		}
	}
}

// TestHintsOfSecretsAudit: secrets audit's own flags keep today's words.
func TestHintsOfSecretsAudit(t *testing.T) {
	want := map[string]string{
		"project not audited":         "its project was not audited (use --all-projects or --project)",
		"service project not audited": "or name the right one with --nova-service-project",
		"the user named nova":         "pass --nova-service-user if yours differs)",
		"the one creator":             "SECRET-OWNER cannot catch a wrong owner this way; pass --nova-service-user to check it",
		"creators disagree":           "have 2 creators; pass --nova-service-user",
		"given":                       "--nova-service-user",
	}
	facts := hintFacts()
	for name, w := range want {
		f := facts[name]
		f.Flags = cliFlags
		if s := texts(Audit(f, time.Now())); !strings.Contains(s, w) {
			t.Errorf("%s: no %q in\n%s", name, w, s)
		}
	}
	f := facts["creators disagree"]
	f.Flags = cliFlags
	if s := texts(Audit(f, time.Now())); !strings.Contains(s, "Nova's service user is unknown (see nova_service_user; pass --nova-service-user)") {
		t.Errorf("SECRET-OWNER skip:\n%s", s)
	}
}
