package reportpage

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// A fleet repeats findings: 90 hosts with the same evacuation note, 2,000
// guests stranded for the same traits, 40 orphaned secrets. The page
// lists each distinct finding once, worst first, with how many share it
// and who (in a <details> list), and leads with the worst of them.

// Group is one row of the findings table: identical findings (same area,
// check, status, remedy, and message but for its numbers) and their
// subjects.
type Group struct {
	Finding  // the first of them
	ID       string
	Subjects []Subject
	// Varied: the messages differ in their numbers ("20 vTPM guests
	// here", "19 vTPM guests here"): each subject carries its own.
	Varied bool
	// Standing: a standing risk (fleet.StandingChecks), not a fault: after
	// the faults of its status.
	Standing bool
	order    int
}

// Subject is one finding of a group: whom it is about (Short: in a few
// words) and, when the group's messages vary, its own message.
type Subject struct{ Name, Short, Message string }

// Count is how many findings the group holds.
func (g Group) Count() int { return len(g.Subjects) }

// Many: more than one finding, listed inside the row.
func (g Group) Many() bool { return len(g.Subjects) > 1 }

// Noun is what the group's subjects are, counted: "2,000 guests".
func (g Group) Noun() string {
	n := g.What
	if n == "" {
		n = "finding"
	}
	if len(g.Subjects) != 1 {
		n += "s"
	}
	return fmt.Sprintf("%d %s", len(g.Subjects), n)
}

// Some names the first subjects, for the row's summary line.
func (g Group) Some() string {
	const k = 3
	var names []string
	for _, s := range g.Subjects[:min(len(g.Subjects), k)] {
		names = append(names, cmp.Or(s.Short, s.Name))
	}
	out := strings.Join(names, ", ")
	if len(g.Subjects) > k {
		out += fmt.Sprintf(" and %d more", len(g.Subjects)-k)
	}
	return out
}

// Title is the finding in a few words, for the first screen: its message
// up to the first colon (the rest says why), or whole.
func (g Group) Title() string {
	m := g.Message
	if g.Varied {
		m = numbers.ReplaceAllString(m, "N")
	}
	if i := strings.Index(m, ": "); i >= 12 {
		m = m[:i]
	}
	if r := []rune(m); len(r) > 160 {
		m = string(r[:159]) + "…"
	}
	return m
}

// numbers are the counts a message varies by from subject to subject.
var numbers = regexp.MustCompile(`\b\d+\b`)

func rank(s result.Status) int {
	switch s {
	case result.Fail:
		return 0
	case result.Warn:
		return 1
	case result.Skip:
		return 2
	}
	return 3
}

// group gathers identical findings, in the order of their first, then
// sorts them worst first: status, faults before standing risks, the
// largest group first.
func group(fs []Finding) []Group {
	var out []Group
	at := map[string]int{}
	for _, f := range fs {
		key := strings.Join([]string{f.Area, f.Check, string(f.Status), f.Remedy, numbers.ReplaceAllString(f.Message, "#")}, "\x00")
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, Group{Finding: f, order: i, Standing: slices.Contains(fleet.StandingChecks, f.Check)})
		}
		g := &out[i]
		g.Varied = g.Varied || f.Message != g.Message
		g.Subjects = append(g.Subjects, Subject{f.Subject, f.Short, f.Message})
	}
	slices.SortStableFunc(out, func(a, b Group) int {
		return cmp.Or(cmp.Compare(rank(a.Status), rank(b.Status)), cmp.Compare(b2i(a.Standing), b2i(b.Standing)),
			cmp.Compare(len(b.Subjects), len(a.Subjects)), cmp.Compare(a.order, b.order))
	})
	for i := range out {
		out[i].ID = fmt.Sprintf("f%d", i+1)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Attention is one line of the page's first screen: a group that is not
// a pass, linked to its row when the view lists it.
type Attention struct {
	Group
	Linked bool
}

// attentionMax is how many groups the first screen names.
const attentionMax = 10
