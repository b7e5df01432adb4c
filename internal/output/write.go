package output

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/vtpmctl/vtpmctl/internal/metrics"
	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/internal/redact"
)

// Table is what a typed result shows as a table, as values and as CSV:
// one column set in the three, the names -c takes. A column's name is its
// key in the result's JSON rows where it has one (server_id, not
// "server"), and its cells are raw fields (an ID, a name; never "name
// (id)"), so a cell copied from a table is what a script reads.
type Table struct {
	// Columns are every column, in order: what -c and --long name.
	Columns []string
	Rows    []Record // each carries Columns, in order
	// Walk, when set, gives the rows instead of Rows, once per pass (a
	// table walks them twice: widths, then lines; a verdict order once
	// more per verdict present), so that a result that does not hold its
	// rows (a streamed secrets audit) is drawn without holding them. A
	// record may not be kept past its yield.
	Walk func(yield func(Record) bool)
	// Default are the columns table, value and csv show without -c or
	// --long (nil: all of them).
	Default []string
	// Wrap are the free-text columns (a message, a reason, findings): a
	// fitted table (--fit-width, --max-width) wraps them at spaces. Every
	// other column (an ID, a name, a host) keeps its width, and no word is
	// ever cut.
	Wrap []string
	// Verdict names the column holding each row's result (pass, warn,
	// fail, skip): rows are shown worst first unless --sort-column says
	// otherwise (sort.go).
	Verdict string
	// Key is the key of the list in the result's JSON that the rows draw
	// (secrets audit's "guests"): json and yaml with -c narrow that
	// list's objects to the chosen fields, and keep the rest.
	Key string
	// Subtables follow the table, fitted to the same width, before the
	// footer (table output only).
	Subtables []Subtable
	// Footer lines follow a table (never value or CSV output, which
	// scripts read).
	Footer []string
	// FooterOf, when set, gives the footer's lines after Footer's. It is
	// called only when a footer is printed, after the rows: a footer that
	// needs every row (a streamed audit's) can gather it while they are
	// walked, and value, CSV and -c, which print none, never pay for it.
	FooterOf func() []string
}

// FooterLines are the table's footer: Footer's lines, then FooterOf's.
func (t Table) FooterLines() []string {
	if t.FooterOf == nil {
		return t.Footer
	}
	return append(slices.Clip(t.Footer), t.FooterOf()...)
}

// Tabular is a command's typed result that has a table view. Its JSON
// (struct tags) is the json and yaml output, the one schema.
type Tabular interface{ Table() Table }

// Recorder is a command's typed result that shows as one object (a show
// command's): Write writes its Record, in every format, so the command
// passes the result itself.
type Recorder interface{ Record() Record }

// TextRecorder is a Recorder whose text formats (table, value, csv) show
// words of their own for the document's values: check's "yes" and "2.0
// (image)" for its document's true, "2.0" and "image". -c names the
// TextRecord's fields there.
type TextRecorder interface {
	Recorder
	TextRecord() Record
}

// Markdowner is a result that is also a markdown document (-f markdown).
type Markdowner interface{ Markdown(w io.Writer) error }

// SchemaField is the field of a Record that names its document's schema:
// json and yaml carry it (with -c too), table, value and csv never show it.
const SchemaField = "schema"

// List is a plain list result, built by a command from rows. With a
// Schema its JSON is a document, {"schema": Schema, Key: [rows]}; without
// one, the rows alone (the shape before schemas: every command sets one).
type List struct {
	Schema  string
	Key     string // the rows' key in the document; "items" when empty
	Columns []string
	Rows    []Record // each carries Columns, in order
	Footer  []string
	// Default, Wrap and Verdict are the table's (Table.Default,
	// Table.Wrap, Table.Verdict).
	Default, Wrap []string
	Verdict       string
	// Extra are the document's keys after the rows (with a Schema only):
	// what json and yaml carry besides them (the changes' near_misses).
	// The text formats show the rows alone.
	Extra []Field
}

func (l List) key() string {
	if l.Key == "" {
		return "items"
	}
	return l.Key
}

// Table implements Tabular.
func (l List) Table() Table {
	return Table{Columns: l.Columns, Rows: l.Rows, Footer: l.Footer, Key: l.key(), Default: l.Default, Wrap: l.Wrap, Verdict: l.Verdict}
}

// doc is the List as a document, nil without a Schema.
func (l List) doc() orderedMap {
	if l.Schema == "" {
		return nil
	}
	d := orderedMap{{Name: SchemaField, Value: l.Schema}, {Name: l.key(), Value: rowsOf(l.Rows)}}
	for _, f := range l.Extra {
		d = append(d, Field{Name: f.Name, Value: jsonValue(f.Value)})
	}
	return d
}

// MarshalJSON writes the document, or the rows as objects, fields in
// column order.
func (l List) MarshalJSON() ([]byte, error) {
	if d := l.doc(); d != nil {
		return json.Marshal(d)
	}
	return json.Marshal(rowsOf(l.Rows))
}

// MarshalYAML writes the document, or the rows as mappings.
func (l List) MarshalYAML() (any, error) {
	if l.Schema != "" {
		return append(Record{{Name: SchemaField, Value: l.Schema}, {Name: l.key(), Value: nonNil(l.Rows)}}, l.Extra...), nil
	}
	return nonNil(l.Rows), nil
}

func nonNil(rs []Record) []Record {
	if rs == nil {
		return []Record{}
	}
	return rs
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
//     or its fields (json and yaml keep its schema field, the text
//     formats never show it);
//   - a Tabular: json/yaml encode the result itself, table/value/csv show
//     its Table; -c chooses the table's columns in table, value and csv,
//     and in json and yaml narrows the objects of the document's list
//     (Table.Key) to the chosen fields, the rest of the document kept;
//   - markdown: the result's own document.
//
// Tables are fitted to o.MaxWidth (tableWidth). Every format passes
// through redact: a server's error text copied into a result (a "not
// auditable" reason) may echo a token.
//
// A run that did not finish publishes nothing: once o.Context is done,
// Write writes no byte, and a list it streams stops at an element
// without ending the document (InterruptedError, interrupt.go).
func Write(w io.Writer, o Options, v any) error {
	if err := o.stopper().stopped(); err != nil {
		return &InterruptedError{Cause: err, Format: o.Format}
	}
	o.width = tableWidth(w, o)
	rw := redact.NewWriter(w)
	err := write(rw, o, v)
	if ferr := rw.Flush(); err == nil {
		err = ferr
	}
	var ie *InterruptedError
	if errors.As(err, &ie) {
		ie.Format = o.Format
	}
	return err
}

func write(w io.Writer, o Options, v any) error {
	if r, ok := v.(TextRecorder); ok && o.Format != "json" && o.Format != "yaml" {
		v = r.TextRecord()
	} else if r, ok := v.(Recorder); ok {
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
		return writeRecord(w, o, r)
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
	case tabular && (o.Format == "table" || o.Format == "value" || o.Format == "" || o.Format == "csv"):
		tb := t.Table()
		shown := o
		if len(o.Columns) == 0 && !o.Long {
			shown.Columns = tb.Default
		}
		if o.Format == "csv" {
			return writeCSV(w, shown, tb)
		}
		if err := printRows(w, shown, tb, len(o.Columns) == 0); err != nil {
			return err
		}
		if o.Format == "value" || len(o.Columns) > 0 {
			return nil
		}
		for _, st := range tb.Subtables {
			writeSubtable(w, st, o.width)
		}
		for _, l := range tb.FooterLines() {
			for _, part := range wrapLine(footerLine(l), o.width, "  ") {
				if _, err := fmt.Fprintln(w, part); err != nil {
					return err
				}
			}
		}
		return nil
	case tabular && len(o.Columns) > 0 && (o.Format == "json" || o.Format == "yaml"):
		doc, err := narrowed(v, t.Table().Key, o.Columns)
		if err != nil {
			return err
		}
		// narrowing walked a streamed list into memory: the run may have
		// stopped meanwhile
		if err := o.stopper().stopped(); err != nil {
			return &InterruptedError{Cause: err}
		}
		if o.Format == "json" {
			return writeJSONDoc(w, doc)
		}
		return writeYAMLDoc(w, doc, o.stopper())
	case o.Format == "json":
		return typedJSON(w, v, o.stopper())
	case o.Format == "yaml":
		return typedYAML(w, v, o.stopper())
	}
	return &FormatError{Format: o.Format}
}

// writeRecord writes one object. Its schema field is the document's:
// json and yaml keep it (with -c too), the text formats drop it.
func writeRecord(w io.Writer, o Options, r Record) error {
	if o.Format == "json" || o.Format == "yaml" {
		if len(o.Columns) > 0 && r.Get(SchemaField) != nil && !slices.ContainsFunc(o.Columns, func(c string) bool { return strings.EqualFold(c, SchemaField) }) {
			o.Columns = append([]string{SchemaField}, o.Columns...)
		}
		return PrintRecord(w, o, r)
	}
	r = slices.DeleteFunc(slices.Clone(r), func(f Field) bool { return f.Name == SchemaField })
	if o.Format == "csv" { // one object: its fields are the columns of one row
		names := make([]string, len(r))
		for i, f := range r {
			names[i] = f.Name
		}
		return writeCSV(w, o, Table{Columns: names, Rows: []Record{r}})
	}
	return PrintRecord(w, o, r)
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

// rows walks the table's rows: its Walk, or its Rows.
func (t Table) rows(yield func(Record) bool) {
	if t.Walk != nil {
		t.Walk(yield)
		return
	}
	for _, r := range t.Rows {
		if !yield(r) {
			return
		}
	}
}

// writeCSV writes the table's columns with a header, a record a line
// (csvString), rows in the table's order.
func writeCSV(w io.Writer, o Options, t Table) error {
	idx, err := columnIndexes(t.Columns, o.Columns)
	if err != nil {
		return err
	}
	rows, err := t.ordered(o)
	if err != nil {
		return err
	}
	stop := o.stopper()
	cw := csv.NewWriter(w)
	head := make([]string, len(idx))
	for k, j := range idx {
		head[k] = t.Columns[j]
	}
	cw.Write(head)
	n := 0
	for r := range rows {
		if err := stop.stopped(); err != nil {
			cw.Flush()
			return cut(err, n)
		}
		row := make([]string, len(idx))
		for k, j := range idx {
			row[k] = quote.CSVCell(csvString(r[j].Value))
		}
		cw.Write(row)
		n++
	}
	cw.Flush()
	return cw.Error()
}

// writeTypedYAML writes v's JSON form as YAML: the same keys, in the same
// order, as -f json.
func writeTypedYAML(w io.Writer, v any) error { return typedYAML(w, v, nil) }

// typedYAML is writeTypedYAML, a streamed list stopped by stop.
func typedYAML(w io.Writer, v any, stop stopper) error {
	if l, ok := v.(*List); ok {
		v = *l
	}
	if l, ok := v.(List); ok && l.Schema != "" {
		return writeYAMLDoc(w, l.fields(l.Rows), stop)
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
	return streamYAML(w, v, stop)
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

// joinAnd spells a list as prose: "a", "a and b", "a, b and c".
func joinAnd(l []string) string {
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " and " + l[len(l)-1]
}
