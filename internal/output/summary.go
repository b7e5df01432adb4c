package output

// Summary is a table of a result's counts, one a line (summary | value):
// what the audits' --summary views print. Its Key names the result's
// list, so -c narrows that (empty) list in json as on the whole result.
type Summary struct{ Table }

// NewSummary starts a summary table of the result whose list is key.
func NewSummary(key string) *Summary {
	return &Summary{Table{Key: key, Columns: []string{"summary", "value"}}}
}

// Add is one count (or value) of the summary.
func (s *Summary) Add(name string, val any) {
	s.Rows = append(s.Rows, Record{{Name: "summary", Value: name}, {Name: "value", Value: val}})
}
