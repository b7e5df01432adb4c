// Package completeness says whether a read can prove an absence.
//
// "Gone", "none" and "orphan" are conclusions drawn from what a list did
// not hold. They hold only when the list was complete for the question:
// every cell answered, every page was followed, nothing was truncated or
// refused, and the scope was as wide as the question. A read that falls
// short carries its Gaps, and a caller that would conclude absence from
// it says "undetermined" instead, with the gaps as its reason.
package completeness

import (
	"fmt"
	"strings"
)

// Kind is why a read is not complete.
type Kind string

const (
	// CellDown: Nova could not reach a cell; its servers are known only
	// by partial records (2.69+) or not at all.
	CellDown Kind = "cell_down"
	// BelowCellDownSupport: the server list was read below compute API
	// 2.69, where a down cell's servers are left out without a word.
	BelowCellDownSupport Kind = "below_2.69"
	// Truncated: the server said so (Keystone's "truncated": true).
	Truncated Kind = "truncated"
	// Forbidden: the server refused the read (403).
	Forbidden Kind = "forbidden"
	// Failed: the read failed (after the transport's retries).
	Failed Kind = "failed"
	// Scope: the read covered less than the question (the token's own
	// project, some projects, a non-admin view).
	Scope Kind = "scope"
)

// Gap is one reason a read is incomplete, in words for the reader.
type Gap struct {
	Kind   Kind   `json:"kind"`
	Detail string `json:"detail"`
}

func (g Gap) String() string { return string(g.Kind) + ": " + g.Detail }

// Gaps are a read's reasons to be incomplete; none: complete.
type Gaps []Gap

// Complete says whether the read can prove an absence.
func (gs Gaps) Complete() bool { return len(gs) == 0 }

// Add records a gap; formatted like fmt.Sprintf.
func (gs *Gaps) Add(k Kind, format string, args ...any) {
	*gs = append(*gs, Gap{Kind: k, Detail: fmt.Sprintf(format, args...)})
}

// Failures are the gaps that are faults (not the caller's chosen scope):
// a run with any of them did not read what it set out to read.
func (gs Gaps) Failures() Gaps {
	var out Gaps
	for _, g := range gs {
		if g.Kind != Scope {
			out = append(out, g)
		}
	}
	return out
}

// String is the gaps on one line, "; " apart.
func (gs Gaps) String() string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = g.String()
	}
	return strings.Join(parts, "; ")
}
