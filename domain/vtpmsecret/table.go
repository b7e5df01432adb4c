package vtpmsecret

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Table is one line per vTPM guest; what a guest of a mode cannot do is
// the same for every guest of that mode, so it is said once per mode
// under the table (-c cannot, value and csv still carry it per guest).
// Orphans, projects not audited and the summary follow.
//
// By default the table shows what fits a 100-column terminal at one line
// a guest, as openstack's server list does: the server's ID and name, the
// project's name (its ID when unknown), the mode, and the checks that did
// not pass in short. Four UUIDs and the findings' words need 136
// columns and more, so server, project, owner, secret and findings are
// shown when -c names them; value and csv, which scripts read, keep
// exactly those columns and never show the short ones.
func (r *Result) Table() output.Table {
	t := output.Table{Key: "guests", Columns: []string{"server", "project", "owner", "mode", "secret", "result", "findings", "cannot",
		"server_id", "name", "project_name", "checks"},
		Default:   []string{"server_id", "name", "project_name", "mode", "checks"},
		TableOnly: []string{"server_id", "name", "project_name", "checks"}}
	// The rows are a walk, not a list: a table walks them twice (widths,
	// then lines), so a streamed result's guests are audited again on
	// each pass and never held (at 500,000 guests ~1.2 KB each). Each
	// walk gathers what the footer says of the guests, which a table
	// prints after its rows: the footer costs no walk of its own, and
	// value, CSV and -c, which print no footer, none at all.
	var seen *guestNotes // by the last walk that went to the end
	t.Walk = func(yield func(output.Record) bool) {
		var n guestNotes
		for g := range r.EachGuest {
			n.add(g)
			if !yield(guestRecord(g)) {
				return
			}
		}
		seen = &n
	}
	t.FooterOf = func() []string {
		if seen == nil {
			var n guestNotes
			for g := range r.EachGuest {
				n.add(g)
			}
			seen = &n
		}
		return r.footer(*seen)
	}
	if len(r.Orphans) > 0 {
		plan := "a cleanup plan"
		if r.cleanupPlan != "" {
			plan = r.cleanupPlan
		}
		st := output.Subtable{Title: "Orphan, duplicate and unmatched secrets (nothing was deleted; " + plan + " prints the commands for true orphans only):",
			Columns: []string{"secret", "project", "instance", "server_exists", "creator", "age", "reason"}}
		for _, or := range r.Orphans {
			st.Rows = append(st.Rows, output.Record{{Name: "secret", Value: or.ID}, {Name: "project", Value: named(or.ProjectName, or.ProjectID)},
				{Name: "instance", Value: or.InstanceID}, {Name: "server_exists", Value: or.Live}, {Name: "creator", Value: named(or.CreatorName, or.CreatorID)},
				{Name: "age", Value: or.AgeText()}, {Name: "reason", Value: or.Reason}})
		}
		t.Subtables = append(t.Subtables, st)
	}
	return t
}

// guestNotes is what a table's footer says of its guests: what a guest
// of each mode cannot do, and the guests audited because of a secret.
type guestNotes struct {
	cannot   map[nova.SecretMode][]string
	evidence []string
}

func (n *guestNotes) add(g GuestResult) {
	if n.cannot == nil {
		n.cannot = map[nova.SecretMode][]string{}
	}
	if _, seen := n.cannot[g.Mode]; !seen {
		n.cannot[g.Mode] = g.Cannot
	}
	if g.Evidence == nova.EvidenceSecret {
		n.evidence = append(n.evidence, fmt.Sprintf("evidence: %s (%s) audited as a vTPM guest because %s", output.ShownName(g.Name), output.ShownName(g.ServerID), g.EvidenceReason))
	}
}

// footer is the table's footer: the guests' notes, then the audit's.
func (r *Result) footer(n guestNotes) []string {
	f := append(cannotLines(n.cannot), n.evidence...)
	if len(r.Undecided) > 0 {
		var parts []string
		c := 0
		for _, u := range nova.UndecidedReasons {
			if k := r.Undecided[u]; k > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", u, k))
				c += k
			}
		}
		f = append(f, fmt.Sprintf("undecided: %d server(s) whose vTPM nothing decided (%s)", c, strings.Join(parts, ", ")))
	}
	for _, w := range r.Warnings {
		f = append(f, "warning: "+w)
	}
	for _, g := range r.Incomplete {
		f = append(f, "partial read: "+g.String())
	}
	f = append(f, notAuditableFooter(r.NotAuditable)...)
	for _, l := range r.SkippedSecrets {
		f = append(f, "not audited: "+l)
	}
	if r.ConsumersNotRead != "" {
		f = append(f, "consumers not read: "+r.ConsumersNotRead)
	}
	if p := r.PushBack; p.Answers > 0 {
		f = append(f, fmt.Sprintf("the cloud pushed back %d time(s) (429/503, each retried): requests in flight were cut to %d of %d", p.Answers, p.Concurrency, p.AtMost))
	}
	s := r.Summary
	protection := ""
	if c := s.Consumers; c != nil {
		protection = fmt.Sprintf(", protected %d, unprotected %d, mismatched consumer %d (key-manager API %s)", c.Protected, c.Unprotected, c.Mismatched, r.KeyManagerAPI)
	}
	return append(f, fmt.Sprintf("guests %d, secrets %d, ok %d, failed %d, orphans %d, not auditable %d%s (Nova %s)",
		s.Guests, s.Secrets, s.OK, s.Failed, s.Orphans, s.NotAuditable, protection, nova.Label(r.Release, r.Candidates)))
}

// guestRecord is one guest's row: its checks that did not pass in short,
// and its verdict.
func guestRecord(g GuestResult) output.Record {
	failed, notAuditable, lines := false, false, []string{}
	for _, fd := range g.Findings {
		switch fd.Status {
		case result.Fail:
			failed = true
			lines = append(lines, string(fd.Check)+": "+fd.Message)
		case result.Warn, result.Skip:
			notAuditable = notAuditable || fd.Status == result.Skip && fd.Check == CheckProject
			lines = append(lines, string(fd.Status)+" "+string(fd.Check)+": "+fd.Message)
		}
	}
	verdict := "ok"
	switch {
	case failed:
		verdict = "FAILED"
	case notAuditable:
		verdict = "not auditable"
	}
	return output.Record{{Name: "server", Value: named(g.Name, g.ServerID)}, {Name: "project", Value: named(g.ProjectName, g.ProjectID)},
		{Name: "owner", Value: named(g.OwnerName, g.UserID)}, {Name: "mode", Value: g.Mode}, {Name: "secret", Value: g.SecretID},
		{Name: "result", Value: verdict}, {Name: "findings", Value: strings.Join(lines, "; ")}, {Name: "cannot", Value: g.Cannot},
		{Name: "server_id", Value: g.ServerID}, {Name: "name", Value: g.Name}, {Name: "project_name", Value: cmp.Or(g.ProjectName, g.ProjectID)},
		{Name: "checks", Value: checks(g)}}
}

// checks is a guest's findings in short, about as wide as one code: its
// row status (the word a status filter keeps) and the first check of that
// status, then how many more did not pass ("fail SECRET-OWNER +1");
// nothing when every check passed. The findings column has their words.
func checks(g GuestResult) string {
	worst := g.RowStatus()
	first, more := "", 0
	for _, fd := range g.Findings {
		if fd.Status != result.Fail && fd.Status != result.Warn && fd.Status != result.Skip {
			continue // what the findings column leaves out too
		}
		if first == "" && fd.Status == worst {
			first = string(fd.Check)
			continue
		}
		more++
	}
	switch {
	case first == "":
		return ""
	case more > 0:
		return fmt.Sprintf("%s %s +%d", worst, first, more)
	}
	return string(worst) + " " + first
}

// named is "name (id)", or the id alone when the name is unknown.
func named(name, id string) string {
	if name == "" || name == id {
		return id
	}
	return name + " (" + id + ")"
}

// cannotLines say, once per mode in the modes' order, what its guests
// cannot do.
func cannotLines(cannotOf map[nova.SecretMode][]string) []string {
	modes := make([]nova.SecretMode, 0, len(cannotOf))
	for m := range cannotOf {
		modes = append(modes, m)
	}
	sort.Slice(modes, func(i, j int) bool { return modes[i] < modes[j] })
	var out []string
	for _, m := range modes {
		if len(cannotOf[m]) == 0 {
			continue
		}
		mode := string(m)
		if mode == "" {
			mode = "legacy"
		}
		out = append(out, fmt.Sprintf("a %s-mode guest cannot: %s", mode, strings.Join(cannotOf[m], "; ")))
	}
	return out
}
