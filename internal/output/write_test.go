package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

type fakeResult struct {
	Schema string   `json:"schema"`
	Hosts  []string `json:"hosts"`
	Total  int      `json:"total"`
}

func (f fakeResult) Table() Table {
	t := Table{Columns: []string{"host", "state"}, Footer: []string{"2 hosts"}}
	for _, h := range f.Hosts {
		t.Rows = append(t.Rows, Record{{Name: "host", Value: h}, {Name: "state", Value: "=up"}})
	}
	return t
}

type fakeDoc struct{ fakeResult }

func (fakeDoc) Markdown(w io.Writer) error { _, err := io.WriteString(w, "# doc\n"); return err }

// TestWriteOneRenderer: json/yaml encode the result itself; table shows
// the rows and the footer; value and csv the rows only; -c the same
// columns in every format.
func TestWriteOneRenderer(t *testing.T) {
	v := fakeResult{Schema: "s/1", Hosts: []string{"a", "b"}, Total: 2}
	for _, tc := range []struct {
		o         Options
		want, not []string
	}{
		{Options{Format: "json"}, []string{`"schema": "s/1"`, `"total": 2`}, []string{"state"}},
		{Options{Format: "yaml"}, []string{"schema: s/1", "total: 2", "- a"}, []string{"{"}},
		{Options{Format: "table"}, []string{"| host | state |", "2 hosts"}, nil},
		{Options{Format: "value"}, []string{"a =up\n"}, []string{"2 hosts", "+"}},
		{Options{Format: "csv"}, []string{"host,state\n", "a,'=up\n"}, []string{"2 hosts"}},
		{Options{Format: "json", Columns: []string{"host"}}, []string{`"host": "a"`}, []string{"state", "schema"}},
		{Options{Format: "yaml", Columns: []string{"host"}}, []string{"- host: a"}, []string{"state"}},
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
		t.Errorf("-c names a JSON field, not a column: %v", err)
	}
}

func TestWriteDocumentDefaultsToMarkdown(t *testing.T) {
	v := fakeDoc{fakeResult{Hosts: []string{"a"}}}
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
}

func TestRecordCSV(t *testing.T) {
	var b bytes.Buffer
	r := Record{{Name: "vtpm", Value: "yes"}, {Name: "traits", Value: []string{"A", "B"}}, {Name: "f", Value: "=x"}}
	if err := Write(&b, Options{Format: "csv"}, r); err != nil || b.String() != "vtpm,traits,f\nyes,\"A\nB\",'=x\n" {
		t.Errorf("%v %q", err, b.String())
	}
	b.Reset()
	Write(&b, Options{Format: "csv", Columns: []string{"vtpm"}}, r)
	if b.String() != "vtpm\nyes\n" {
		t.Errorf("-c: %q", b.String())
	}
}
