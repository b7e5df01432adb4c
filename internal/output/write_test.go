package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

type fakeHost struct {
	Host  string `json:"host"`
	State string `json:"state"`
	Note  string `json:"note,omitempty"`
}

type fakeResult struct {
	Schema string     `json:"schema"`
	Hosts  []fakeHost `json:"hosts"`
	Total  int        `json:"total"`
}

func (f fakeResult) Table() Table {
	t := Table{Columns: []string{"host", "state"}, Footer: []string{"2 hosts"}, Key: "hosts"}
	for _, h := range f.Hosts {
		t.Rows = append(t.Rows, Record{{Name: "host", Value: h.Host}, {Name: "state", Value: h.State}})
	}
	return t
}

type fakeDoc struct{ fakeResult }

func (fakeDoc) Markdown(w io.Writer) error { _, err := io.WriteString(w, "# doc\n"); return err }

// TestWriteOneRenderer: json/yaml encode the result itself; table shows
// the rows and the footer; value and csv the rows only; -c the chosen
// columns in table, value and csv, and in json and yaml the chosen fields
// of the document's rows, the document kept.
func TestWriteOneRenderer(t *testing.T) {
	v := fakeResult{Schema: "s/1", Hosts: []fakeHost{{"a", "=up", ""}, {"b", "=up", "n"}}, Total: 2}
	for _, tc := range []struct {
		o         Options
		want, not []string
	}{
		{Options{Format: "json"}, []string{`"schema": "s/1"`, `"total": 2`, `"state": "=up"`}, []string{"2 hosts"}},
		{Options{Format: "yaml"}, []string{"schema: s/1", "total: 2", "- host: a"}, []string{"{"}},
		{Options{Format: "table"}, []string{"| host | state |", "2 hosts"}, nil},
		{Options{Format: "value"}, []string{"a =up\n"}, []string{"2 hosts", "+"}},
		{Options{Format: "csv"}, []string{"host,state\n", "a,'=up\n"}, []string{"2 hosts"}},
		{Options{Format: "json", Columns: []string{"host"}}, []string{`"schema": "s/1"`, `"total": 2`, "{\n      \"host\": \"a\"\n    }"}, []string{"state"}},
		{Options{Format: "yaml", Columns: []string{"host"}}, []string{"schema: s/1", "hosts:\n  - host: a\n  - host: b\ntotal: 2"}, []string{"state"}},
		{Options{Format: "table", Columns: []string{"state"}}, []string{"| state |"}, []string{"host", "2 hosts"}},
	} {
		var b bytes.Buffer
		if err := Write(&b, tc.o, v); err != nil {
			t.Fatalf("%+v: %v", tc.o, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%+v: no %q in\n%s", tc.o, w, b.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%+v: %q in\n%s", tc.o, w, b.String())
			}
		}
	}
	var b bytes.Buffer
	var fe *FormatError
	if err := Write(&b, Options{Format: "markdown"}, v); !errors.As(err, &fe) {
		t.Errorf("markdown of a table result: %v", err)
	}
	var ce *ColumnError
	if err := Write(&b, Options{Format: "json", Columns: []string{"total"}}, v); !errors.As(err, &ce) {
		t.Errorf("-c names a field of the rows, not of the document: %v", err)
	}
}

// TestColumnsKeepDocument: -c in json narrows the list's objects (in -c's
// order, omitempty as encoding/json) and keeps every other key; the
// document still parses as the whole one does.
func TestColumnsKeepDocument(t *testing.T) {
	v := &fakeResult{Schema: "s/1", Hosts: []fakeHost{{"a", "up", ""}, {"b", "down", "n"}}, Total: 2}
	var b bytes.Buffer
	if err := Write(&b, Options{Format: "json", Columns: []string{"NOTE", "host"}}, v); err != nil {
		t.Fatal(err)
	}
	want := `{"schema":"s/1","hosts":[{"host":"a"},{"note":"n","host":"b"}],"total":2}`
	if got := compact(t, b.Bytes()); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{fakeResult{Schema: "s/1", Total: 0}, `{"schema":"s/1","hosts":null,"total":0}`},
		{List{Schema: "l/1", Key: "changes", Columns: []string{"a", "b"}, Rows: []Record{{{"a", 1}, {"b", "x"}}}}, `{"schema":"l/1","changes":[{"b":"x"}]}`},
	} {
		b.Reset()
		if err := Write(&b, Options{Format: "json", Columns: []string{"b"}}, c.v); err != nil && c.want != "" {
			// fakeResult has no "b": only the List case may pass
			var ce *ColumnError
			if !errors.As(err, &ce) {
				t.Errorf("%T: %v", c.v, err)
			}
			continue
		}
		if got := compact(t, b.Bytes()); got != c.want {
			t.Errorf("%T: got %s\nwant %s", c.v, got, c.want)
		}
	}
}

// TestRecordSchema: a Record's schema is the document's: json and yaml
// keep it with -c, the text formats never show it.
func TestRecordSchema(t *testing.T) {
	r := Record{{SchemaField, "vtpmctl.x/1"}, {"vtpm", true}, {"name", "w1"}}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Format: "json", Columns: []string{"vtpm"}}, "{\n  \"schema\": \"vtpmctl.x/1\",\n  \"vtpm\": true\n}\n"},
		{Options{Format: "yaml", Columns: []string{"name", "schema"}}, "name: w1\nschema: vtpmctl.x/1\n"},
		{Options{Format: "value"}, "true\nw1\n"},
		{Options{Format: "csv"}, "vtpm,name\ntrue,w1\n"},
		{Options{Format: "table", Columns: []string{"vtpm"}}, "+-------+-------+\n| Field | Value |\n+-------+-------+\n| vtpm  | true  |\n+-------+-------+\n"},
	} {
		var b bytes.Buffer
		if err := Write(&b, c.o, r); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%+v:\n%s\nwant\n%s", c.o, b.String(), c.want)
		}
	}
	var b bytes.Buffer
	var ce *ColumnError
	if err := Write(&b, Options{Format: "table", Columns: []string{"schema"}}, r); !errors.As(err, &ce) {
		t.Errorf("-c schema in a table: %v, want a ColumnError", err)
	}
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return out.String()
}

func TestWriteDocumentDefaultsToMarkdown(t *testing.T) {
	v := fakeDoc{fakeResult{Hosts: []fakeHost{{Host: "a"}}}}
	var b bytes.Buffer
	Write(&b, Options{Format: "table"}, v)
	if b.String() != "# doc\n" {
		t.Errorf("default: %q", b.String())
	}
	b.Reset()
	Write(&b, Options{Format: "table", Explicit: true}, v)
	if !strings.Contains(b.String(), "| host |") {
		t.Errorf("-f table: %q", b.String())
	}
}

func TestListJSON(t *testing.T) {
	var b bytes.Buffer
	Write(&b, Options{Format: "json"}, List{Columns: []string{"z", "a"}, Rows: []Record{{{Name: "z", Value: 1}, {Name: "a", Value: "x"}}}})
	var back []map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back) != 1 || !strings.Contains(b.String(), `"z": 1,`) {
		t.Errorf("%v %s", err, b.String())
	}
	b.Reset()
	Write(&b, Options{Format: "json"}, List{Columns: []string{"a"}})
	if strings.TrimSpace(b.String()) != "[]" {
		t.Errorf("empty list: %q", b.String())
	}
	for v, want := range map[*List]string{
		{Schema: "l/1", Columns: []string{"a"}}:                                          `{"schema":"l/1","items":[]}`,
		{Schema: "l/1", Key: "rows", Columns: []string{"a"}, Rows: []Record{{{"a", 1}}}}: `{"schema":"l/1","rows":[{"a":1}]}`,
	} {
		b.Reset()
		Write(&b, Options{Format: "json"}, v)
		if got := compact(t, b.Bytes()); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// TestRecordCSV: one object is one CSV record, one line: a list's items
// joined by "; ".
func TestRecordCSV(t *testing.T) {
	var b bytes.Buffer
	r := Record{{Name: "vtpm", Value: "yes"}, {Name: "traits", Value: []string{"A", "B"}}, {Name: "f", Value: "=x"}}
	if err := Write(&b, Options{Format: "csv"}, r); err != nil || b.String() != "vtpm,traits,f\nyes,A; B,'=x\n" {
		t.Errorf("%v %q", err, b.String())
	}
	b.Reset()
	Write(&b, Options{Format: "csv", Columns: []string{"vtpm"}}, r)
	if b.String() != "vtpm\nyes\n" {
		t.Errorf("-c: %q", b.String())
	}
}
