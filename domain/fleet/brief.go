package fleet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// Fleet-scale tables: at 2,000 guests a row per guest repeating the same
// reason (or a line per stranded guest repeating the same traits) is
// thousands of lines whose answer is the last one. A brief table leads
// with the verdict, says each distinct answer once with how many share it
// and a few of their names, and fits one screen; the whole list stays in
// the long table and in the JSON, which a brief view never changes.

const (
	// briefGroups is the most groups a brief table lists; the rest are
	// counted in one line.
	briefGroups = 8
	// briefNames is how many names a group shows before "and N more".
	briefNames = 3
)

// someNames names the first n of names (shown as output.ShownName does
// a cloud's name) and counts the rest.
func someNames(names []string, n int) string {
	shown := make([]string, 0, min(len(names), n))
	for _, s := range names[:min(len(names), n)] {
		shown = append(shown, output.ShownName(s))
	}
	if len(names) > n {
		return strings.Join(shown, ", ") + fmt.Sprintf(" and %d more", len(names)-n)
	}
	return strings.Join(shown, ", ")
}

// group is one distinct answer and who shares it, in first-seen order.
type group[T any] struct {
	key   string
	first T
	names []string
}

// groupBy groups items by key, the largest group first, ties in the
// order they were first seen; worse, when set, puts its groups first.
func groupBy[T any](items []T, key func(T) string, name func(T) string, worse func(T) bool) []*group[T] {
	var out []*group[T]
	at := map[string]*group[T]{}
	for _, it := range items {
		k := key(it)
		g, ok := at[k]
		if !ok {
			g = &group[T]{key: k, first: it}
			at[k] = g
			out = append(out, g)
		}
		g.names = append(g.names, name(it))
	}
	slices.SortStableFunc(out, func(a, b *group[T]) int {
		if worse != nil && worse(a.first) != worse(b.first) {
			if worse(a.first) {
				return -1
			}
			return 1
		}
		return cmp.Compare(len(b.names), len(a.names))
	})
	return out
}

// Verdict is the upgrade check's answer in one line.
func (u *UpgradeResult) Verdict() string {
	s := u.Summary
	v := fmt.Sprintf("pass: no vTPM guest stranded (of %d)", s.VTPMGuests)
	if s.Stranded > 0 {
		v = fmt.Sprintf("fail: %d of %d vTPM guest(s) stranded", s.Stranded, s.VTPMGuests)
	}
	return v + fmt.Sprintf("; %d of %d host(s) up and enabled stop receiving vTPM guests", s.Losing, s.Hosts)
}

// UpgradeBrief is the upgrade check at fleet scale, the table a person
// gets by default: the verdict first, the hosts grouped by what the
// upgrade does to them, the stranded guests grouped by what they
// require, each group once with its count and some names. Its JSON is
// the whole result's.
type UpgradeBrief struct {
	*UpgradeResult
	// More is how the caller's users ask for every host and guest (the
	// CLI: its flag); the last line points to it, none when empty.
	More string `json:"-"`
}

// Brief is u's brief table view; u is not changed.
func (u *UpgradeResult) Brief(more string) UpgradeBrief { return UpgradeBrief{u, more} }

// Table: the verdict as the table, the groups as its subtables.
func (b UpgradeBrief) Table() output.Table {
	u := b.UpgradeResult
	head := "upgrade " + u.From + " -> " + u.To
	t := output.Table{Key: "hosts", Columns: []string{head}, Wrap: []string{head}, Rows: []output.Record{{{Name: "verdict", Value: u.Verdict()}}}}
	// hosts: worst (those that stop receiving vTPM guests) first
	hg := groupBy(u.Hosts, func(h UpgradeHost) string {
		return fmt.Sprint(h.Now.TPM20 || h.Now.CRB, h.After.TPM20 || h.After.CRB, h.Missing)
	}, func(h UpgradeHost) string { return h.Host }, func(h UpgradeHost) bool { return h.Loses })
	if len(hg) > 0 {
		shown := fmt.Sprint(len(u.Hosts))
		if len(u.Hosts) != u.Summary.Hosts {
			shown = fmt.Sprintf("%d of %d", len(u.Hosts), u.Summary.Hosts) // a --status view
		}
		st := output.Subtable{Title: shown + " host(s) up and enabled, by what the upgrade does to them:",
			Columns: []string{"count", "vtpm_now", "vtpm_after", "missing_traits", "hosts"}, Wrap: []string{"hosts"}}
		for _, g := range hg[:min(len(hg), briefGroups)] {
			h := g.first
			st.Rows = append(st.Rows, output.Record{{Name: "count", Value: len(g.names)}, {Name: "vtpm_now", Value: h.Now.TPM20 || h.Now.CRB},
				{Name: "vtpm_after", Value: h.After.TPM20 || h.After.CRB}, {Name: "missing_traits", Value: h.Missing}, {Name: "hosts", Value: someNames(g.names, briefNames)}})
		}
		if n := len(hg) - briefGroups; n > 0 {
			st.Title += fmt.Sprintf(" (the %d largest groups; %d more)", briefGroups, n)
		}
		t.Subtables = append(t.Subtables, st)
	}
	sg := groupBy(u.Stranded, func(s StrandedGuest) string { return strings.Join(s.Requires, " ") },
		func(s StrandedGuest) string { return s.Name }, nil)
	if len(sg) > 0 {
		st := output.Subtable{Title: fmt.Sprintf("%d stranded vTPM guest(s), by the traits they need on another host:", len(u.Stranded)),
			Columns: []string{"count", "on_hosts", "requires", "guests"}, Wrap: []string{"guests"}}
		hosts := map[string]map[string]bool{}
		for _, s := range u.Stranded {
			k := strings.Join(s.Requires, " ")
			if hosts[k] == nil {
				hosts[k] = map[string]bool{}
			}
			hosts[k][s.Host] = true
		}
		for _, g := range sg[:min(len(sg), briefGroups)] {
			st.Rows = append(st.Rows, output.Record{{Name: "count", Value: len(g.names)}, {Name: "on_hosts", Value: len(hosts[g.key])},
				{Name: "requires", Value: g.first.Requires}, {Name: "guests", Value: someNames(g.names, briefNames)}})
		}
		if n := len(sg) - briefGroups; n > 0 {
			st.Title += fmt.Sprintf(" (the %d largest groups; %d more)", briefGroups, n)
		}
		t.Subtables = append(t.Subtables, st)
	}
	for _, a := range u.Advice {
		t.Footer = append(t.Footer, "advice: "+a)
	}
	if l := knownBugsLine(u.To, u.KnownBugs); l != "" {
		t.Footer = append(t.Footer, l)
	}
	if b.More != "" {
		t.Footer = append(t.Footer, "every host, stranded guest and known bug: "+b.More)
	}
	return t
}

// knownBugsLine: the known bugs in one line, by what the target does.
func knownBugsLine(to string, ks []KnownBugFix) string {
	var fixed, point, not []string
	for _, k := range ks {
		switch {
		case k.FixedByUpgrade:
			fixed = append(fixed, string(k.ID))
		case k.To == hostcheck.FixPoint:
			point = append(point, string(k.ID))
		case k.To == hostcheck.FixNone:
			not = append(not, string(k.ID))
		}
	}
	var parts []string
	if len(fixed) > 0 {
		parts = append(parts, "fixed by "+to+": "+strings.Join(fixed, ", "))
	}
	if len(point) > 0 {
		parts = append(parts, "fixed only in later "+to+" point releases: "+strings.Join(point, ", "))
	}
	if len(not) > 0 {
		parts = append(parts, "not fixed in "+to+": "+strings.Join(not, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "known vTPM/UEFI bugs " + strings.Join(parts, "; ")
}

// Verdict is the drain's answer in one line: can the host be emptied.
func (d *DrainResult) Verdict() string {
	n, s := len(d.Guests), d.Summary
	switch {
	case n == 0:
		return "can be drained: no vTPM guest here"
	case s[DrainStays] > 0:
		return fmt.Sprintf("cannot be drained: %d of %d vTPM guest(s) would stay; %d live-migrate, %d cold-migrate", s[DrainStays], n, s[DrainLive], s[DrainCold])
	}
	v := fmt.Sprintf("can be drained: %d vTPM guest(s): %d live-migrate, %d cold-migrate", n, s[DrainLive], s[DrainCold])
	if s[DrainCold] > 0 {
		v += " (stopped while they move)"
	}
	return v
}

// DrainBrief is the drain of one host at fleet scale, the table a person
// gets by default: the verdict first, then the guests grouped by how
// they leave and why (a reason is said once, with how many guests share
// it and some of their names). Its JSON is the whole drain's.
type DrainBrief struct {
	*DrainResult
	// More is how the caller's users ask for a row per guest (the CLI:
	// its flag); the last line points to it, none when empty.
	More string `json:"-"`
}

// Brief is d's brief table view; d is not changed.
func (d *DrainResult) Brief(more string) DrainBrief { return DrainBrief{d, more} }

// drainRank: the worst answer first.
func drainRank(a DrainAction) int {
	switch a {
	case DrainStays:
		return 0
	case DrainCold:
		return 1
	}
	return 2
}

// Table: the verdict as the table, the groups as its subtable.
func (b DrainBrief) Table() output.Table {
	d := b.DrainResult
	head := "host " + output.ShownName(d.Host)
	t := output.Table{Key: "guests", Columns: []string{head}, Wrap: []string{head}, Rows: []output.Record{{{Name: "verdict", Value: d.Verdict()}}}}
	gs := groupBy(d.Guests, func(g RiskGuest) string { return string(g.Drain) + "\x00" + string(g.Mode) + "\x00" + g.DrainReason },
		func(g RiskGuest) string { return g.Name }, nil)
	slices.SortStableFunc(gs, func(x, y *group[RiskGuest]) int {
		return cmp.Compare(drainRank(x.first.Drain), drainRank(y.first.Drain))
	})
	if len(gs) > 0 {
		// The reasons are long (a paragraph each): under the table at its
		// full width, each once, not squeezed into a column.
		st := output.Subtable{Title: fmt.Sprintf("%d vTPM guest(s), by how they leave %s and why:", len(d.Guests), output.ShownName(d.Host)),
			Columns: []string{"why", "count", "drain", "mode", "guests"}, Wrap: []string{"guests"}}
		for i, g := range gs[:min(len(gs), briefGroups)] {
			st.Rows = append(st.Rows, output.Record{{Name: "why", Value: i + 1}, {Name: "count", Value: len(g.names)}, {Name: "drain", Value: string(g.first.Drain)},
				{Name: "mode", Value: string(g.first.Mode)}, {Name: "guests", Value: someNames(g.names, briefNames)}})
			t.Footer = append(t.Footer, fmt.Sprintf("why %d: %s", i+1, g.first.DrainReason))
		}
		if n := len(gs) - briefGroups; n > 0 {
			st.Title += fmt.Sprintf(" (the %d worst groups; %d more)", briefGroups, n)
		}
		t.Subtables = append(t.Subtables, st)
	}
	var undecided []RiskGuest
	for _, g := range d.Guests {
		if !decidedByAPIs(g.Evidence) {
			undecided = append(undecided, g)
		}
	}
	for _, g := range groupBy(undecided, RiskGuest.evidenceWords, func(g RiskGuest) string { return g.Name }, nil) {
		t.Footer = append(t.Footer, fmt.Sprintf("evidence: %d guest(s) counted as vTPM guests because %s: %s", len(g.names), g.key, someNames(g.names, briefNames)))
	}
	if b.More != "" {
		t.Footer = append(t.Footer, "each guest with its server ID: "+b.More)
	}
	return t
}
