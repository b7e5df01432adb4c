// Package outputtest holds the checks every result's tests share: a
// result's table (or record) and its JSON are one schema, so -c names
// the same fields in every format.
package outputtest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/output"
)

// RecordJSON is -f json of a Record: its fields in order.
func RecordJSON(t testing.TB, r output.Record) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		v, err := json.Marshal(f.Value)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// TableIsJSON checks that tb is rows as JSON: the table's key is key,
// each row's cells sit under the columns in order, the rows drawn as
// JSON are rows' JSON byte for byte, and (with rows) every JSON key has
// its column.
func TableIsJSON(t testing.TB, tb output.Table, rows any, key string) {
	t.Helper()
	var b bytes.Buffer
	b.WriteByte('[')
	for i, r := range tb.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		for k, f := range r {
			if f.Name != tb.Columns[k] {
				t.Errorf("row %d cell %d is %q under column %q", i, k, f.Name, tb.Columns[k])
			}
		}
		b.WriteString(RecordJSON(t, r))
	}
	b.WriteByte(']')
	want, _ := json.Marshal(rows)
	if b.String() != string(want) {
		t.Errorf("table\n%s\nJSON\n%s", b.String(), want)
	}
	if tb.Key != key {
		t.Errorf("table key %q, want %q", tb.Key, key)
	}
	if len(tb.Rows) == 0 {
		return
	}
	var keys []map[string]json.RawMessage
	json.Unmarshal(want, &keys)
	if len(keys[0]) != len(tb.Columns) {
		t.Errorf("%d JSON keys, %d columns", len(keys[0]), len(tb.Columns))
	}
}

// RecordIsJSON checks that a shown object's record is its JSON.
func RecordIsJSON(t testing.TB, r output.Record, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := RecordJSON(t, r); got != string(want) {
		t.Errorf("record\n%s\nJSON\n%s", got, want)
	}
}
