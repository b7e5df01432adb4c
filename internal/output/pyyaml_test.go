package output_test

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
)

// retyped are strings a YAML 1.1 or 1.2 reader reads, unquoted, as no
// string: bools in any case, nulls, numbers as YAML 1.1 spells them
// (sexagesimal, octal, with separators), timestamps, and a word or two
// that stays a string.
var retyped = []string{"yes", "No", "ON", "off", "y", "N", "yEs", "true", "False", "~", "null", "NULL",
	"1:20", "190:20:30", "0755", "0b11", "0x1F", "1_000", "1,000", "1.5", "1.", "1_0.5", "42",
	".inf", "-.Inf", ".NaN", "2026-12-06", "2026-1-6 10:00:00", "=", "<<", "", "x\ny", "unknown", "31.3.0"}

// TestPyYAMLReadsOurYAML: every way this package writes YAML (a typed
// result a field at a time, a Record, a List with and without a schema,
// -c narrowing a document) is read by PyYAML as the JSON is by json:
// a host check report's carried: no stays the string "no".
func TestPyYAMLReadsOurYAML(t *testing.T) {
	var docs []outputtest.Doc
	add := func(name string, o output.Options, v any) {
		var y, j bytes.Buffer
		o.Format = "yaml"
		if err := output.Write(&y, o, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		o.Format = "json"
		if err := output.Write(&j, o, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs = append(docs, outputtest.Doc{Name: name, YAML: y.Bytes(), JSON: j.Bytes()})
	}
	r := rand.New(rand.NewSource(40))
	for _, typ := range []reflect.Type{reflect.TypeFor[hostcheck.Report](), reflect.TypeFor[fleet.Result](), reflect.TypeFor[vtpmsecret.Result]()} {
		for i := 0; i < 4; i++ {
			v := reflect.New(typ)
			output.FillWith(v.Elem(), r, 0, retyped)
			add(typ.String(), output.Options{}, v.Interface())
		}
	}
	report := hostcheck.Report{Host: "yes", Checks: []hostcheck.Check{{ID: "RESIZE-REVERT", Status: hostcheck.Pass,
		Bug: &hostcheck.BugVerdict{ID: hostcheck.BugResizeRevert, Carried: hostcheck.No}}}}
	add("a report", output.Options{}, report)

	rec := output.Record{{Name: "schema", Value: "vtpmctl.test/1"}}
	m := map[string]string{}
	for i, s := range retyped {
		rec = append(rec, output.Field{Name: "f" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Value: s})
		m[s] = s
	}
	rec = append(rec, output.Field{Name: "list", Value: retyped}, output.Field{Name: "map", Value: m},
		output.Field{Name: "nested", Value: output.Record{{Name: "yes", Value: "no"}, {Name: "1:20", Value: "on"}}},
		output.Field{Name: "rows", Value: []output.Record{{{Name: "kept", Value: "off"}}}})
	add("a record", output.Options{}, rec)

	var rows []output.Record
	for _, s := range retyped {
		rows = append(rows, output.Record{{Name: "name", Value: s}, {Name: "kept", Value: s}, {Name: "n", Value: len(s)}})
	}
	cols := []string{"name", "kept", "n"}
	add("a list", output.Options{}, output.List{Columns: cols, Rows: rows})
	add("a document", output.Options{}, output.List{Schema: "vtpmctl.test/1", Key: "guests", Columns: cols, Rows: rows})
	add("a document, -c kept", output.Options{Columns: []string{"kept"}}, output.List{Schema: "vtpmctl.test/1", Key: "guests", Columns: cols, Rows: rows})
	add("a record, -c", output.Options{Columns: []string{"fa" + "a", "nested"}}, rec)

	outputtest.PyYAMLReadsAsJSON(t, docs...)
}
