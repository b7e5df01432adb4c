package vtpmsecret

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
		setMode(&f, 0, "deployment")
		f.ServiceProject = "svc"
		f.Secrets.mut(0).ProjectID = "svc"
		f.Audited = map[string]bool{"svc": true}
		return f
	}
	f = dep()
	f.Audited = map[string]bool{}
	out["service project not audited"] = f
	f = dep()
	f.NotAuditable = map[string]NotAuditable{"svc": {Kind: ListRefused}}
	f.Audited = map[string]bool{}
	out["service project refused"] = f
	f = dep()
	f.NovaNamedUsers = []string{"nova"}
	out["the user named nova"] = f
	f = dep()
	out["the one creator"] = f
	f = dep()
	s := f.Secrets.At(0)
	s.ID, s.CreatorID, s.InstanceID = "s2", "bob", "srv2"
	f.Guests.Add(Guest{ServerID: "srv2", ProjectID: "p1", UserID: "bob", Mode: "deployment"})
	f.Secrets.Add(s)
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

// TestHintsNameNoFlag: the audit names no flag, whoever runs it (report
// has none of secrets audit's flags, plan verify one; their audits once
// told the user to pass secrets audit's).
func TestHintsNameNoFlag(t *testing.T) {
	for name, f := range hintFacts() {
		if s := texts(Audit(f, time.Now())); strings.Contains(s, "--") {
			t.Errorf("%s: a flag named:\n%s", name, s)
		}
	}
}

// TestHints: each finding a user could settle carries the hint of what
// to give, and the service user says how it is known.
func TestHints(t *testing.T) {
	for _, c := range []struct {
		facts  string
		check  CheckID
		hint   Hint
		source ServiceUserSource
	}{
		{"project not audited", CheckProject, HintScope, ""},
		{"service project not audited", CheckProject, HintServiceProject, ServiceUserOneCreator},
		{"service project refused", CheckProject, HintServiceProject, ServiceUserOneCreator},
		{"the user named nova", "", "", ServiceUserNovaNamed},
		{"the one creator", "", "", ServiceUserOneCreator},
		{"creators disagree", CheckSecretOwner, HintServiceUser, ServiceUserUnknown},
		{"given", "", "", ServiceUserGiven},
	} {
		r := Audit(hintFacts()[c.facts], time.Now())
		hinted := map[CheckID]Hint{}
		for _, fd := range r.Guests[0].Findings {
			if fd.Hint != "" {
				hinted[fd.Check] = fd.Hint
			}
		}
		if c.check != "" && (len(hinted) != 1 || hinted[c.check] != c.hint) || c.check == "" && len(hinted) != 0 {
			t.Errorf("%s: hints %v, want %s on %s", c.facts, hinted, c.hint, c.check)
		}
		if got := r.ServiceUser; c.source != "" && (got == nil || got.Source != c.source) || c.source == "" && got != nil {
			t.Errorf("%s: service user %+v, want source %q", c.facts, got, c.source)
		}
	}
}

// TestHintsNamed: Name puts the caller's name of each hint into the
// audit's sentence, making the lines secrets audit printed with its
// flags (FLAG stands for a flag's name); a hint without a name keeps its
// text, and naming again rewords rather than adds.
func TestHintsNamed(t *testing.T) {
	all := func(Hint) string { return "FLAG" }
	want := map[string][]string{
		"project not audited":         {"not auditable: its project was not audited (use FLAG)\n"},
		"service project not audited": {"give the auditing user a role in the service project (reader is enough to list), or name the right one with FLAG\n"},
		"service project refused":     {"Barbican refuses to list its secrets (403)", "(reader is enough to list), or name the right one with FLAG\n"},
		"the user named nova":         {`the Keystone user named "nova" (the [service_user] username of the usual deployment tools; pass FLAG if yours differs)` + "\n"},
		"the one creator":             {"SECRET-OWNER cannot catch a wrong owner this way; pass FLAG to check it\n"},
		"creators disagree":           {"have 2 creators; pass FLAG\n", "Nova's service user is unknown (see nova_service_user; pass FLAG)\n"},
		"given":                       {"\nFLAG\n"},
	}
	facts := hintFacts()
	for name, ws := range want {
		r := Audit(facts[name], time.Now())
		plain := texts(r)
		r.Name(all)
		s := texts(r)
		for _, w := range ws {
			if !strings.Contains(s, w) {
				t.Errorf("%s: no %q in\n%s", name, w, s)
			}
		}
		if r.Name(all); texts(r) != s {
			t.Errorf("%s: named twice:\n%s", name, texts(r))
		}
		r.Name(func(Hint) string { return "" })
		if got := texts(r); got != plain {
			t.Errorf("%s: no names, yet\n%s\nwas\n%s", name, got, plain)
		}
	}
	// plan verify names the service project only
	r := Audit(facts["creators disagree"], time.Now())
	r.Name(func(h Hint) string {
		if h == HintServiceProject {
			return "FLAG"
		}
		return ""
	})
	if s := texts(r); strings.Contains(s, "FLAG") {
		t.Errorf("a hint named that the caller has no name for:\n%s", s)
	}
}

// TestOrphansTitleNamed: the orphans' title names the caller's way to
// the cleanup plan, when it has one.
func TestOrphansTitleNamed(t *testing.T) {
	r := Audit(baseFacts(), now)
	r.Orphans = []Orphan{{Kind: OrphanGone}}
	if title := r.Table().Subtables[0].Title; !strings.Contains(title, "nothing was deleted; a cleanup plan prints the commands") {
		t.Error(title)
	}
	r.Name(func(h Hint) string {
		if h == HintCleanupPlan {
			return "FLAG"
		}
		return ""
	})
	if title := r.Table().Subtables[0].Title; title != "Orphan, duplicate and unmatched secrets (nothing was deleted; FLAG prints the commands for true orphans only):" {
		t.Error(title)
	}
}
