package result

import (
	"fmt"
	"slices"
	"strings"
)

// Statuses are every Status, worst first: the order a row's checks
// settle its status in, and the valid values of a Filter.
var Statuses = []Status{Fail, Warn, Skip, Pass}

// Worst is the worst of the statuses (Pass for none): a row's status
// when it holds several checks.
func Worst(ss ...Status) Status {
	best := len(Statuses) - 1
	for _, s := range ss {
		if i := slices.Index(Statuses, s); i >= 0 && i < best {
			best = i
		}
	}
	return Statuses[best]
}

// Filter is the set of statuses a view keeps; the zero Filter keeps
// every row.
type Filter []Status

// Keeps says whether a row of status s stays in the view.
func (f Filter) Keeps(s Status) bool { return len(f) == 0 || slices.Contains(f, s) }

// UnknownStatusError is a status word that is none of Statuses.
type UnknownStatusError struct{ Word string }

func (e *UnknownStatusError) Error() string {
	names := make([]string, len(Statuses))
	for i, s := range Statuses {
		names[i] = string(s)
	}
	return fmt.Sprintf("unknown status %q (choose from %s)", e.Word, strings.Join(names, ", "))
}

// ParseFilter reads status words, each a single status or a comma list
// ("fail,warn"); an empty word is refused, as a typo would be.
func ParseFilter(words []string) (Filter, error) {
	var f Filter
	for _, w := range words {
		for _, part := range strings.Split(w, ",") {
			s := Status(strings.ToLower(strings.TrimSpace(part)))
			if !slices.Contains(Statuses, s) {
				return nil, &UnknownStatusError{Word: part}
			}
			if !slices.Contains(f, s) {
				f = append(f, s)
			}
		}
	}
	return f, nil
}
