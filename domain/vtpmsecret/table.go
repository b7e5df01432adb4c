package vtpmsecret

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// guestColumns are the audit's columns, named as the guests' keys in its
// JSON where they have one: table, value and csv show the same ones.
var guestColumns = []string{"result", "server_id", "name", "project_id", "project_name", "user_id", "owner_name", "mode",
	"secret_id", "protection", "checks", "findings", "cannot"}

// Table is one line per vTPM guest, worst result first; what a guest of a
// mode cannot do is the same for every guest of that mode, so it is said
// once per mode under the table (-c cannot, or --long, has it per guest).
// Orphans, projects not audited and the summary follow.
//
// By default a guest's row is its result (pass, warn, fail, skip), its
// server's ID and name, its project's name, its mode, and the checks that
// did not pass in short, each cell a raw field: an ID whole (a table is
// never narrowed below its IDs), a name alone. --long adds the project's
// and the owner's IDs, the owner's name, the secret, the protection, the
// findings' words and what the guest cannot do; value and csv show the
// same columns as the table.
func (r *Result) Table() output.Table {
	t := output.Table{Key: "guests", Columns: guestColumns, Verdict: "result",
		Default: []string{"result", "server_id", "name", "project_name", "mode", "checks"},
		Wrap:    []string{"checks", "findings"}}
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
			Columns: []string{"id", "project_id", "project_name", "instance_id", "kind", "server_exists", "age", "reason"}, Wrap: []string{"reason"}}
		for _, or := range r.Orphans {
			st.Rows = append(st.Rows, output.Record{{Name: "id", Value: or.ID}, {Name: "project_id", Value: or.ProjectID}, {Name: "project_name", Value: or.ProjectName},
				{Name: "instance_id", Value: or.InstanceID}, {Name: "kind", Value: or.Kind}, {Name: "server_exists", Value: or.Live},
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

// guestRecord is one guest's row (guestColumns): its verdict, its raw
// fields, its checks that did not pass in short and in words.
func guestRecord(g GuestResult) output.Record {
	lines := []string{}
	for _, fd := range g.Findings {
		switch fd.Status {
		case result.Fail:
			lines = append(lines, string(fd.Check)+": "+fd.Message)
		case result.Warn, result.Skip:
			lines = append(lines, string(fd.Status)+" "+string(fd.Check)+": "+fd.Message)
		}
	}
	return output.Record{{Name: "result", Value: g.RowStatus()}, {Name: "server_id", Value: g.ServerID}, {Name: "name", Value: g.Name},
		{Name: "project_id", Value: g.ProjectID}, {Name: "project_name", Value: g.ProjectName},
		{Name: "user_id", Value: g.UserID}, {Name: "owner_name", Value: g.OwnerName}, {Name: "mode", Value: g.Mode},
		{Name: "secret_id", Value: g.SecretID}, {Name: "protection", Value: g.Protection},
		{Name: "checks", Value: checks(g)}, {Name: "findings", Value: lines}, {Name: "cannot", Value: strings.Join(g.Cannot, ", ")}}
}

// checks is a guest's findings in short, about as wide as one code (the
// row's result says their status): the first check of the row's status,
// then how many more did not pass ("SECRET-OWNER +1"); nothing when every
// check passed. The findings column has their words.
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
		return fmt.Sprintf("%s +%d", first, more)
	}
	return first
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
