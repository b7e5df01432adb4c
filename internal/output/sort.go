package output

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Rows come in the order people read them: a table with a verdict column
// (Table.Verdict: pass, warn, fail, skip) worst first, each status's rows
// in the result's order; --sort-column NAME (repeatable, the first the
// most significant) orders by those columns instead, --sort-ascending
// (the default) or --sort-descending, as openstack's client does. table,
// value and csv are ordered alike; json and yaml keep the result's order
// (a document is the machine's, and a streamed one is never held).

// verdictRank orders a verdict cell: fail, warn, skip, pass (result's
// Statuses), then any other word.
func verdictRank(v any) int {
	s := result.Status(cellString(v))
	if i := slices.Index(result.Statuses, s); i >= 0 {
		return i
	}
	return len(result.Statuses)
}

// ordered is the table's rows in the order o asks for: by o's sort
// columns (held and sorted: --sort-column holds the rows), else worst
// verdict first (walked once per verdict present, never held), else as
// the result gives them.
func (t Table) ordered(o Options) (func(yield func(Record) bool), error) {
	verdict := -1
	if t.Verdict != "" {
		verdict = slices.Index(t.Columns, t.Verdict)
	}
	if len(o.SortColumns) > 0 {
		idx, err := columnIndexes(t.Columns, o.SortColumns)
		if err != nil {
			return nil, err
		}
		return t.sorted(idx, verdict, o.SortDescending), nil
	}
	if verdict < 0 {
		return t.rows, nil
	}
	return rankedWalk(t.rows, verdict, o.SortDescending), nil
}

// rankedWalk walks rows once per verdict, worst first (desc: best
// first), yielding that verdict's rows in their order. Its first walk
// notes which verdicts there are, so none is walked for in vain.
func rankedWalk(rows func(yield func(Record) bool), col int, desc bool) func(yield func(Record) bool) {
	return func(yield func(Record) bool) {
		n := len(result.Statuses) + 1
		seen := make([]bool, n)
		for k := range n {
			rank := k
			if desc {
				rank = n - 1 - k
			}
			if k > 0 && !seen[rank] {
				continue
			}
			for r := range rows {
				rk := verdictRank(r[col].Value)
				if k == 0 {
					seen[rk] = true
				}
				if rk == rank && !yield(r) {
					return
				}
			}
		}
	}
}

// sorted holds the rows and sorts them, stably, by the columns idx (the
// verdict column by its rank, numbers as numbers, other text as text).
func (t Table) sorted(idx []int, verdict int, desc bool) func(yield func(Record) bool) {
	return func(yield func(Record) bool) {
		var held []Record
		for r := range t.rows {
			held = append(held, slices.Clone(r))
		}
		slices.SortStableFunc(held, func(a, b Record) int {
			for _, i := range idx {
				var c int
				if i == verdict {
					c = cmp.Compare(verdictRank(a[i].Value), verdictRank(b[i].Value))
				} else {
					c = compareCells(cellString(a[i].Value), cellString(b[i].Value))
				}
				if c != 0 {
					if desc {
						return -c
					}
					return c
				}
			}
			return 0
		})
		for _, r := range held {
			if !yield(r) {
				return
			}
		}
	}
}

// compareCells compares two cells as numbers when both are, else as
// text (case folded first, so "b" follows "A").
func compareCells(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}
