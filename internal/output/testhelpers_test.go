package output

import "strings"

// Helpers only the tests call.

// TableLines draws a table into lines, for a result that shows a second
// table under its first.
func TableLines(columns []string, recs []Record) []string {
	var b strings.Builder
	rows := make([][]string, len(recs))
	for i, r := range recs {
		rows[i] = make([]string, len(r))
		for j, f := range r {
			rows[i][j] = cellString(f.Value)
		}
	}
	writeTable(&b, layout{head: columns}, rows, 0)
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}
