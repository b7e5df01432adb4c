package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"testing"
)

type fakeShown struct{ Name string }

func (s fakeShown) Record() Record {
	return Record{{Name: SchemaField, Value: "shown/1"}, {Name: "name", Value: s.Name}, {Name: "version", Value: "2.0"}}
}

type fakeWorded struct{ fakeShown }

func (s fakeWorded) TextRecord() Record {
	return Record{{Name: "name", Value: s.Name}, {Name: "version", Value: "2.0"}, {Name: "version_source", Value: "image"}}
}

// selfMarshaled is a row whose keys are known only from its JSON.
type selfMarshaled struct{ k string }

func (s selfMarshaled) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{s.k: "v"})
}

type fakeSelfRows struct {
	Rows []selfMarshaled `json:"rows"`
}

func (fakeSelfRows) Table() Table { return Table{Columns: []string{"k"}, Key: "rows"} }

// TestColumnsOfPrototype: the names -c may give, from a result's types
// alone, per format, are those Write takes from a full result: each is
// written without a ColumnError, and a name outside them is refused. A
// prototype with no rows answers.
func TestColumnsOfPrototype(t *testing.T) {
	full := []any{
		&fakeResult{Schema: "s/1", Hosts: []fakeHost{{"a", "up", "n"}}, Total: 1},
		List{Schema: "l/1", Key: "changes", Columns: []string{"object", "key"}, Rows: []Record{{{"object", "x"}, {"key", "k"}}}},
		fakeShown{Name: "x"},
		fakeWorded{fakeShown{Name: "x"}},
		Record{{Name: "a", Value: 1}},
	}
	protos := []any{&fakeResult{}, List{Schema: "l/1", Key: "changes", Columns: []string{"object", "key"}}, fakeShown{}, fakeWorded{}, Record{{Name: "a"}}}
	want := map[Format][][]string{
		FormatTable: {{"host", "state"}, {"object", "key"}, {"name", "version"}, {"name", "version", "version_source"}, {"a"}},
		FormatJSON:  {{"host", "state", "note"}, {"object", "key"}, {"schema", "name", "version"}, {"schema", "name", "version"}, {"a"}},
	}
	want[FormatValue], want[FormatCSV], want[FormatYAML] = want[FormatTable], want[FormatTable], want[FormatJSON]
	for _, f := range DefaultFormats {
		for i, v := range full {
			names, ok := Columns(protos[i], f)
			if !ok || !slices.Equal(names, want[f][i]) {
				t.Errorf("%s %T: %v %v, want %v", f, v, names, ok, want[f][i])
			}
			for _, n := range names {
				if err := Write(io.Discard, Options{Format: string(f), Columns: []string{n}}, v); err != nil {
					t.Errorf("%s %T -c %s: %v", f, v, n, err)
				}
			}
			var ce *ColumnError
			if err := Write(io.Discard, Options{Format: string(f), Columns: []string{"nosuch"}}, v); !errors.As(err, &ce) {
				t.Errorf("%s %T -c nosuch: %v", f, v, err)
			}
		}
	}
	for _, c := range []struct {
		v any
		f Format
	}{
		{fakeSelfRows{}, FormatJSON}, // the keys are the rows'
		{&fakeResult{}, FormatPrometheus},
		{&fakeResult{}, FormatMarkdown},
		{struct{}{}, FormatTable},
	} {
		if names, ok := Columns(c.v, c.f); ok {
			t.Errorf("%T %s: %v, want unchecked", c.v, c.f, names)
		}
	}
	if names, ok := Columns(fakeSelfRows{}, FormatTable); !ok || !slices.Equal(names, []string{"k"}) {
		t.Errorf("self-marshaled rows' table: %v %v", names, ok)
	}
}

// TestListExtra: a List document's Extra keys follow its rows in json and
// yaml (with -c too, which narrows the rows alone); the text formats show
// the rows alone.
func TestListExtra(t *testing.T) {
	l := List{Schema: "l/1", Key: "changes", Columns: []string{"a", "b"}, Rows: []Record{{{"a", 1}, {"b", "x"}}},
		Extra: []Field{{Name: "near_misses", Value: []Record{{{"key", "k"}, {"did_you_mean", "K"}}}}}}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Format: "json"}, `{"schema":"l/1","changes":[{"a":1,"b":"x"}],"near_misses":[{"key":"k","did_you_mean":"K"}]}`},
		{Options{Format: "json", Columns: []string{"b"}}, `{"schema":"l/1","changes":[{"b":"x"}],"near_misses":[{"key":"k","did_you_mean":"K"}]}`},
	} {
		var b bytes.Buffer
		if err := Write(&b, c.o, l); err != nil || compact(t, b.Bytes()) != c.want {
			t.Errorf("%+v: %v %s\nwant %s", c.o, err, b.String(), c.want)
		}
		if j, err := json.Marshal(l); c.o.Columns == nil && (err != nil || string(j) != c.want) {
			t.Errorf("MarshalJSON: %v %s", err, j)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, Options{Format: "yaml"}, l); err != nil || b.String() != "schema: l/1\nchanges:\n  - a: 1\n    b: x\nnear_misses:\n  - key: k\n    did_you_mean: K\n" {
		t.Errorf("yaml: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := Write(&b, Options{Format: "value"}, l); err != nil || b.String() != "1 x\n" {
		t.Errorf("value: %v %q", err, b.String())
	}
}

type scripted struct{ words, raw string }

func (s scripted) String() string     { return s.words }
func (s scripted) ScriptText() string { return s.raw }

// TestScriptText: value and csv print a ScriptTexter's ScriptText (raw,
// for scripts), a table its String; a nil one is an empty cell.
func TestScriptText(t *testing.T) {
	r := Record{{Name: "release", Value: &scripted{"Zed (nova 26)", "zed"}}, {Name: "none", Value: (*scripted)(nil)}}
	for f, want := range map[string]string{"value": "zed\n\n", "csv": "release,none\nzed,\n"} {
		var b bytes.Buffer
		if err := Write(&b, Options{Format: f}, r); err != nil || b.String() != want {
			t.Errorf("%s: %v %q, want %q", f, err, b.String(), want)
		}
	}
	l := List{Columns: []string{"release"}, Rows: []Record{{{Name: "release", Value: scripted{"Zed (nova 26)", "zed"}}}}}
	var b bytes.Buffer
	if err := Write(&b, Options{Format: "value"}, l); err != nil || b.String() != "zed\n" {
		t.Errorf("list value: %v %q", err, b.String())
	}
	b.Reset()
	if err := Write(&b, Options{Format: "table"}, r); err != nil || !bytes.Contains(b.Bytes(), []byte("Zed (nova 26)")) {
		t.Errorf("table: %v\n%s", err, b.String())
	}
}
