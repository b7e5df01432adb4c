package output

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/internal/metrics"
	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/internal/redact"
)

// Table is what a typed result shows as a table, as values, as CSV, and
// what -c selects from in every format.
type Table struct {
	Columns []string
	Rows    []Record // each carries Columns, in order
	// Footer lines follow a table (never value or CSV output, which
	// scripts read).
	Footer []string
}

// Tabular is a command's typed result that has a table view. Its JSON
// (struct tags) is the json and yaml output, the one schema.
type Tabular interface{ Table() Table }

// Recorder is a command's typed result that shows as one object (a show
// command's): Write writes its Record, in every format, so the command
// passes the result itself.
type Recorder interface{ Record() Record }

// Markdowner is a result that is also a markdown document (-f markdown).
type Markdowner interface{ Markdown(w io.Writer) error }

// List is a plain list result: its JSON is the rows.
type List Table

// Table implements Tabular.
func (l List) Table() Table { return Table(l) }

// MarshalJSON writes the rows as objects, fields in column order.
func (l List) MarshalJSON() ([]byte, error) { return json.Marshal(rowsOf(l.Rows)) }

// MarshalYAML writes the rows as mappings, fields in column order.
func (l List) MarshalYAML() (any, error) {
	if l.Rows == nil {
		return []Record{}, nil
	}
	return l.Rows, nil
}

func rowsOf(rs []Record) []orderedMap {
	out := make([]orderedMap, len(rs))
	for i := range rs {
		out[i] = orderedMap(rs[i])
	}
	return out
}

// Write renders a command's result: the one place that looks at -f.
//
//   - a Record (one object), or a Recorder's Record: a Field/Value table,
//     or its fields;
//   - a Tabular: json/yaml encode the result itself, table/value/csv show
//     its Table; with -c every format shows the chosen columns of the rows;
//   - markdown: the result's own document.
//
// Every format passes through redact: a server's error text copied into
// a result (a "not auditable" reason) may echo a token.
func Write(w io.Writer, o Options, v any) error {
	rw := redact.NewWriter(w)
	err := write(rw, o, v)
	if ferr := rw.Flush(); err == nil {
		err = ferr
	}
	return err
}

func write(w io.Writer, o Options, v any) error {
	if r, ok := v.(Recorder); ok {
		v = r.Record()
	}
	if o.Format == "prometheus" {
		g, ok := v.(metrics.Gauges)
		if !ok {
			return &FormatError{Format: "prometheus"}
		}
		return metrics.Write(w, g.Gauges())
	}
	if r, ok := v.(Record); ok {
		if o.Format == "csv" { // one object: its fields are the columns of one row
			names := make([]string, len(r))
			for i, f := range r {
				names[i] = f.Name
			}
			return writeCSV(w, o, Table{Columns: names, Rows: []Record{r}})
		}
		return PrintRecord(w, o, r)
	}
	if _, doc := v.(Markdowner); doc && !o.Explicit && len(o.Columns) == 0 {
		o.Format = "markdown"
	}
	if o.Format == "markdown" {
		m, ok := v.(Markdowner)
		if !ok {
			return &FormatError{Format: "markdown"}
		}
		return writeMarkdown(w, m)
	}
	t, tabular := v.(Tabular)
	switch {
	case tabular && (len(o.Columns) > 0 || o.Format == "table" || o.Format == "value" || o.Format == "" || o.Format == "csv"):
		tb := t.Table()
		if o.Format == "csv" {
			return writeCSV(w, o, tb)
		}
		if err := PrintList(w, o, tb.Columns, tb.Rows); err != nil {
			return err
		}
		if (o.Format == "table" || o.Format == "") && len(o.Columns) == 0 {
			for _, l := range tb.Footer {
				if _, err := fmt.Fprintln(w, footerLine(l)); err != nil {
					return err
				}
			}
		}
		return nil
	case o.Format == "json":
		return writeJSON(w, v)
	case o.Format == "yaml":
		return writeTypedYAML(w, v)
	}
	return &FormatError{Format: o.Format}
}

// writeMarkdown scrubs the document itself, with the mark markdown
// shows: Write's own pass, which knows no format, would write the plain
// Mark, an HTML tag a markdown viewer hides. That pass then finds nothing.
func writeMarkdown(w io.Writer, m Markdowner) error {
	rw := redact.NewMarkWriter(w, redact.EscapedMark)
	if err := m.Markdown(rw); err != nil {
		return err
	}
	return rw.Flush()
}

// FormatError is a format this result cannot be shown in (usage). When
// a command refuses a format it did not declare, Command names it,
// Allowed lists what it declared and For the commands that do print the
// format (empty when none).
type FormatError struct {
	Format  string
	Command string
	Allowed []Format
	For     []string
}

func (e *FormatError) Error() string {
	if e.Command != "" {
		msg := fmt.Sprintf("-f %s is not available for %s (choose from %s", e.Format, e.Command, JoinFormats(e.Allowed))
		if len(e.For) > 0 {
			msg += fmt.Sprintf("; -f %s is for %s", e.Format, joinAnd(e.For))
		}
		return msg + ")"
	}
	if e.Format == "prometheus" {
		return "-f prometheus is for host check, hosts audit and secrets audit (choose from table, json, yaml, value, csv)"
	}
	return fmt.Sprintf("-f %s is not available for this command (choose from table, json, yaml, value, csv)", e.Format)
}

func writeCSV(w io.Writer, o Options, t Table) error {
	idx, err := columnIndexes(t.Columns, o.Columns)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	head := make([]string, len(idx))
	for k, j := range idx {
		head[k] = t.Columns[j]
	}
	cw.Write(head)
	for _, r := range t.Rows {
		row := make([]string, len(idx))
		for k, j := range idx {
			row[k] = quote.CSVCell(cellString(r[j].Value))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// writeTypedYAML writes v's JSON form as YAML: the same keys, in the same
// order, as -f json.
func writeTypedYAML(w io.Writer, v any) error {
	if l, ok := v.(*List); ok {
		v = *l
	}
	if l, ok := v.(List); ok && len(l.Rows) > 0 {
		// one row at a time: block sequence items concatenate
		bw := bufio.NewWriterSize(w, 64<<10)
		for i := range l.Rows {
			if err := writeTypedYAMLWhole(bw, rowsOf(l.Rows[i:i+1])); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	return streamYAML(w, v)
}

func writeTypedYAMLWhole(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return yamlOfJSON(w, b)
}

// blockStyle undoes JSON's flow style and quoting, so the YAML reads like
// the rest of vtpmctl's YAML.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && needsQuotes(n.Value) {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// needsQuotes: a string that YAML would read back as another type, or
// that is empty, keeps its quotes.
func needsQuotes(s string) bool {
	if s == "" {
		return true
	}
	var v any
	if yaml.Unmarshal([]byte(s), &v) != nil {
		return true
	}
	_, isString := v.(string)
	return !isString || strings.ContainsAny(s, "\n\t") || v.(string) != s
}

// joinAnd spells a list as prose: "a", "a and b", "a, b and c".
func joinAnd(l []string) string {
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " and " + l[len(l)-1]
}
