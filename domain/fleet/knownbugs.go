package fleet

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// KnownBugFix is one of hostcheck.KnownBugs across an upgrade: whether
// the current and the target release's packages have its fix.
type KnownBugFix struct {
	ID    hostcheck.BugID  `json:"id"`
	Title string           `json:"title"`
	From  hostcheck.BugFix `json:"from"`
	To    hostcheck.BugFix `json:"to"`
	// FixedIn: the first version with the fix that answers for the
	// target ("33.0.0"; a point release when To is point_release).
	FixedIn string `json:"fixed_in,omitempty"`
	// FixedByUpgrade: every package of the target has the fix and not
	// every package of the current release has.
	FixedByUpgrade bool   `json:"fixed_by_upgrade"`
	Message        string `json:"message"`
}

// KnownBugFixes decides every known vTPM/UEFI bug for from → to, from
// each bug's fixed versions (the installed point release decides within a
// series: host check's KNOWN-BUGS reads it).
func KnownBugFixes(from, to nova.Release) []KnownBugFix {
	out := make([]KnownBugFix, 0, len(hostcheck.KnownBugs))
	for i := range hostcheck.KnownBugs {
		b := &hostcheck.KnownBugs[i]
		k := KnownBugFix{ID: b.ID, Title: b.Title}
		k.From, _ = b.FixIn(from)
		k.To, k.FixedIn = b.FixIn(to)
		k.FixedByUpgrade = k.To == hostcheck.FixAll && k.From != hostcheck.FixAll
		k.Message = fixMessage(b, from, to, k)
		out = append(out, k)
	}
	return out
}

func fixMessage(b *hostcheck.KnownBug, from, to nova.Release, k KnownBugFix) string {
	var msg string
	switch k.To {
	case hostcheck.FixAll:
		r, _ := nova.ParseRelease(strings.SplitN(k.FixedIn, ".", 2)[0])
		if r == to {
			msg = fmt.Sprintf("fixed in %s (nova %s)", to, k.FixedIn)
		} else {
			msg = fmt.Sprintf("fixed in %s (since %s, nova %s)", to, r, k.FixedIn)
		}
	case hostcheck.FixPoint:
		msg = fmt.Sprintf("fixed in %s only from nova %s: older %s packages still carry it (host check KNOWN-BUGS reads the installed code)", to, k.FixedIn, to)
	case hostcheck.FixNone:
		msg = fmt.Sprintf("not fixed in %s (fixed in nova %s)", to, strings.Join(b.Fixed, ", "))
	default:
		msg = "target release unknown"
	}
	switch k.From {
	case hostcheck.FixAll:
		msg += fmt.Sprintf("; %s already has the fix", from)
	case hostcheck.FixPoint:
		if k.To != hostcheck.FixNone {
			msg += fmt.Sprintf("; %s has it only in its later point releases", from)
		}
	}
	return msg
}
