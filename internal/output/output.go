package output

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Format is one -f value.
type Format string

// The -f values. A command declares which it can print (DefaultFormats
// unless it says otherwise); Write refuses the rest.
const (
	FormatTable      Format = "table"
	FormatJSON       Format = "json"
	FormatYAML       Format = "yaml"
	FormatValue      Format = "value"
	FormatCSV        Format = "csv"
	FormatMarkdown   Format = "markdown"   // documents only (plan checklist)
	FormatPrometheus Format = "prometheus" // results with Gauges only
)

// DefaultFormats are what every typed result can be shown as.
var DefaultFormats = []Format{FormatTable, FormatJSON, FormatYAML, FormatValue, FormatCSV}

// Formats lists the accepted -f values.
var Formats = []string{"table", "json", "yaml", "value", "csv", "markdown", "prometheus"}

// JoinFormats spells a list of formats for a message: "table, json, yaml".
func JoinFormats(fs []Format) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// Options are the user's -f and -c choices.
type Options struct {
	Format  string
	Columns []string
	// Explicit: -f was given. A document result (Markdowner) is markdown
	// unless the user asked for another format.
	Explicit bool
	// MaxWidth is the width tables are fitted to (--max-width): 0 none
	// unless FitWidth, < 0 never fit (FitWidth too).
	MaxWidth int
	// FitWidth (--fit-width, CLIFF_FIT_WIDTH=1): fit tables to the
	// terminal's width, else $COLUMNS (none in a pipe without it).
	FitWidth bool
	// Long (--long): the text formats show every column, not the table's
	// Default ones.
	Long bool
	// SortColumns (--sort-column) order table, value and csv rows by
	// those columns, the first the most significant; SortDescending
	// reverses them (and, without SortColumns, the verdict order).
	SortColumns    []string
	SortDescending bool
	// Context, when set, is the run's: once it is done Write publishes
	// nothing, and stops a list it streams at the element it is on
	// (InterruptedError, interrupt.go).
	Context context.Context

	width int // MaxWidth resolved by Write against its writer
}

// Validate rejects an unknown format before any work is done.
func (o Options) Validate() error {
	f := o.Format
	if f == "" {
		return nil
	}
	for _, ok := range Formats {
		if f == ok {
			return nil
		}
	}
	return fmt.Errorf("unknown output format %q (choose from %s)", f, strings.Join(Formats, ", "))
}

// Field is one named value of a record; Value may be a string, number,
// bool, []string or anything encoding/json can marshal.
type Field struct {
	Name  string
	Value any
}

// Record is an ordered set of fields: one object.
type Record []Field

// Get returns the value of a named field (nil when absent).
func (r Record) Get(name string) any {
	for _, f := range r {
		if f.Name == name {
			return f.Value
		}
	}
	return nil
}

// PrintRecord prints one object: a Field/Value table, a JSON or YAML
// mapping, or the bare values one per line.
func PrintRecord(w io.Writer, o Options, r Record) error {
	r, err := selectFields(r, o.Columns)
	if err != nil {
		return err
	}
	switch o.Format {
	case "json":
		return writeJSON(w, orderedMap(r))
	case "yaml":
		return writeYAML(w, r)
	case "value":
		for _, f := range r {
			fmt.Fprintln(w, valueString(f.Value))
		}
		return nil
	}
	rows := make([][]string, len(r))
	for i, f := range r {
		rows[i] = []string{f.Name, cellString(f.Value)}
	}
	// a field's name is never cut; its value wraps at spaces, its words
	// (an ID) whole
	writeTable(w, layout{head: []string{"Field", "Value"}, wrap: []bool{false, true}}, rows, o.width)
	return nil
}

// PrintList prints rows under the given columns. Every record must carry
// the columns in the same order.
func PrintList(w io.Writer, o Options, columns []string, recs []Record) error {
	return printRows(w, o, Table{Columns: columns, Rows: recs}, len(o.Columns) == 0)
}

// printRows prints a table's rows in table, value, json or yaml: the
// columns o.Columns names, else every one (Write passes Default unless
// --long). A table walks the rows twice (widths, then lines; a column
// empty in every row left out unless -c named it), value once; json and
// yaml collect them. Rows are in the order o asks (Table.ordered).
// dropEmpty: the columns were not named (-c), so a table leaves out a
// column empty in every row.
func printRows(w io.Writer, o Options, t Table, dropEmpty bool) error {
	columns := t.Columns
	idx, err := columnIndexes(columns, o.Columns)
	if err != nil {
		return err
	}
	rows, err := t.ordered(o)
	if err != nil {
		return err
	}
	switch o.Format {
	case "json", "yaml":
		var out []orderedMap
		for r := range rows {
			m := make(orderedMap, 0, len(idx))
			for _, j := range idx {
				m = append(m, r[j])
			}
			out = append(out, m)
		}
		if out == nil {
			out = []orderedMap{}
		}
		if o.Format == "json" {
			return writeJSON(w, out)
		}
		ys := make([]Record, len(out))
		for i := range out {
			ys[i] = Record(out[i])
		}
		return writeYAML(w, ys)
	case "value":
		stop, n := o.stopper(), 0
		for r := range rows {
			if err := stop.stopped(); err != nil {
				return cut(err, n)
			}
			n++
			parts := make([]string, len(idx))
			for k, j := range idx {
				parts[k] = valueString(r[j].Value)
			}
			fmt.Fprintln(w, strings.Join(parts, " "))
		}
		return nil
	}
	head := make([]string, len(idx))
	for k, j := range idx {
		head[k] = columns[j]
	}
	cells := make([]string, len(idx))
	cellsOf := func(rows func(yield func(Record) bool)) func(yield func([]string) bool) {
		return func(yield func([]string) bool) {
			for r := range rows {
				for k, j := range idx {
					cells[k] = cellString(r[j].Value)
				}
				if !yield(cells) {
					return
				}
			}
		}
	}
	l := layout{head: head, wrap: wrapFlags(head, t.Wrap), dropEmpty: dropEmpty}
	// widths need no order: the rows as the result gives them
	return writeTableOf(w, l, cellsOf(t.rows), cellsOf(rows), o.width, o.stopper())
}

func selectFields(r Record, want []string) (Record, error) {
	if len(want) == 0 {
		return r, nil
	}
	names := make([]string, len(r))
	for i, f := range r {
		names[i] = f.Name
	}
	idx, err := columnIndexes(names, want)
	if err != nil {
		return nil, err
	}
	out := make(Record, len(idx))
	for k, j := range idx {
		out[k] = r[j]
	}
	return out, nil
}

func columnIndexes(have, want []string) ([]int, error) {
	if len(want) == 0 {
		idx := make([]int, len(have))
		for i := range have {
			idx[i] = i
		}
		return idx, nil
	}
	var idx []int
	for _, w := range want {
		found := -1
		for i, h := range have {
			if strings.EqualFold(h, w) {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, &ColumnError{Column: w, Available: have}
		}
		idx = append(idx, found)
	}
	return idx, nil
}

// ColumnError is a -c value that names no column; it is a usage error.
type ColumnError struct {
	Column    string
	Available []string
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("no column %q (choose from %s)", e.Column, strings.Join(e.Available, ", "))
}

// orderedMap keeps field order in JSON, which a Go map would lose.
type orderedMap []Field

func (m orderedMap) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		v, err := json.Marshal(jsonValue(f.Value))
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func jsonValue(v any) any {
	if r, ok := v.(Record); ok {
		return orderedMap(r)
	}
	if rs, ok := v.([]Record); ok {
		out := make([]orderedMap, len(rs))
		for i := range rs {
			out[i] = orderedMap(rs[i])
		}
		return out
	}
	return v
}

// MarshalYAML keeps field order in YAML, and quotes what needsQuotes
// says (the encoder quotes only YAML 1.1's bool words it knows, not
// "yEs", "1_0.5" or "=").
func (r Record) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range r {
		var v yaml.Node
		if err := v.Encode(yamlValue(f.Value)); err != nil {
			return nil, err
		}
		quoteStrings(&v)
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: f.Name}
		if needsQuotes(f.Name) {
			k.Style = yaml.DoubleQuotedStyle
		}
		n.Content = append(n.Content, k, &v)
	}
	return n, nil
}

// quoteStrings double-quotes n's plain strings that needsQuotes says
// would not read back as themselves.
func quoteStrings(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 &&
		n.ShortTag() == "!!str" && needsQuotes(n.Value) {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteStrings(c)
	}
}

// yamlValue passes structs through JSON so YAML uses the same keys.
func yamlValue(v any) any {
	switch v.(type) {
	case nil, string, bool, int, int64, float64, []string, Record, []Record:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return string(b)
	}
	return out
}

func writeYAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// cellString renders a value for a table cell: lists one item per line.
func cellString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []string:
		return strings.Join(x, "\n")
	case map[string]string:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		lines := make([]string, len(keys))
		for i, k := range keys {
			lines[i] = k + "=" + x[k]
		}
		return strings.Join(lines, "\n")
	case string:
		return x
	case bool, int, int64, float64:
		return fmt.Sprint(x)
	}
	return typedText(v)
}

// csvString renders a value for a CSV cell: one line, a list's items
// (and a text's lines) joined by "; ", so a record is one line.
func csvString(v any) string {
	s := scriptCell(v)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), "; ")
}

// valueString renders a value for -f value: lists space-separated, so
// `for x in $(vtpmctl … -f value -c traits)` works, and a ScriptTexter
// raw.
func valueString(v any) string {
	if l, ok := v.([]string); ok {
		return strings.Join(l, " ")
	}
	return strings.ReplaceAll(scriptCell(v), "\n", " ")
}

// ScriptTexter is a value whose text for scripts (-f value, csv) is not
// its text for people (a table's cell, its String): a Nova release is
// "Zed (nova 26)" in a table and "zed", what --nova-release takes, for
// $(…), as OSC's value format prints the raw field.
type ScriptTexter interface{ ScriptText() string }

// scriptCell is v's cell in value and csv output: its ScriptText, else its
// table cell.
func scriptCell(v any) string {
	if st, ok := v.(ScriptTexter); ok {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return ""
		}
		return st.ScriptText()
	}
	return cellString(v)
}
