package output

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var errSignal = errors.New("interrupted (SIGTERM)")

// cutDoc is a streamed result whose walk ends the run's context (as a
// signal would) when it reaches element at, counting across walks (a
// table walks twice).
type cutDoc struct {
	Schema string      `json:"schema"`
	Rows   []streamRow `json:"rows"`
	Tail   int         `json:"tail"`
	walk   []streamRow
	at     int // -1: never
	cancel context.CancelCauseFunc
	seen   int
}

func (d *cutDoc) each(yield func(*streamRow) bool) {
	for i := range d.walk {
		if d.seen == d.at {
			d.cancel(errSignal)
		}
		d.seen++
		if !yield(&d.walk[i]) {
			return
		}
	}
}

func (d *cutDoc) StreamedList(key string) (func(yield func(any) bool), bool) {
	if key != "rows" {
		return nil, false
	}
	return func(yield func(any) bool) {
		d.each(func(r *streamRow) bool { return yield(r) })
	}, true
}

func (d *cutDoc) Table() Table {
	return Table{Columns: []string{"id", "note"}, Key: "rows", Footer: []string{"the footer"},
		Walk: func(yield func(Record) bool) {
			d.each(func(r *streamRow) bool {
				return yield(Record{{Name: "id", Value: r.ID}, {Name: "note", Value: r.Note}})
			})
		}}
}

func cutRun(t *testing.T, format string, at int) (out string, whole string, err error) {
	t.Helper()
	rows := make([]streamRow, 5)
	for i := range rows {
		rows[i] = streamRow{ID: fmt.Sprintf("row-%d", i), Note: "n"}
	}
	var full bytes.Buffer
	if err := Write(&full, Options{Format: format, Context: context.Background()}, &cutDoc{Schema: "s/1", Tail: 7, walk: rows, at: -1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var b bytes.Buffer
	err = Write(&b, Options{Format: format, Context: ctx}, &cutDoc{Schema: "s/1", Tail: 7, walk: rows, at: at, cancel: cancel})
	return b.String(), full.String(), err
}

// TestWriteStoppedBeforeWritesNothing: a run whose context ended before
// Write publishes nothing, in every format, and says why.
func TestWriteStoppedBeforeWritesNothing(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errSignal)
	for _, f := range []string{"table", "json", "yaml", "value", "csv"} {
		var b bytes.Buffer
		err := Write(&b, Options{Format: f, Context: ctx}, &cutDoc{Schema: "s/1", walk: []streamRow{{ID: "a"}}, at: -1})
		var ie *InterruptedError
		if !errors.As(err, &ie) || ie.Partial || !errors.Is(err, errSignal) || b.Len() != 0 {
			t.Errorf("-f %s: %d bytes written, err %v", f, b.Len(), err)
		}
	}
}

// TestStreamCutIsNoDocument: a run stopped while its list streams
// leaves the elements written whole and no whole document: JSON without
// its closing brackets, YAML ending in a line no parser accepts, a table
// without its bottom border and footer; value and CSV stop at a row.
func TestStreamCutIsNoDocument(t *testing.T) {
	for _, tc := range []struct {
		format string
		at     int // the walked element the run stops at
		rows   int // the rows written whole
	}{
		{"json", 2, 2}, {"json", 0, 0},
		{"yaml", 3, 3}, {"yaml", 0, 0},
		{"table", 5 + 2, 2}, // the second walk draws
		{"value", 4, 4},
		{"csv", 1, 1},
	} {
		t.Run(fmt.Sprintf("%s at %d", tc.format, tc.at), func(t *testing.T) {
			out, whole, err := cutRun(t, tc.format, tc.at)
			var ie *InterruptedError
			if !errors.As(err, &ie) || !ie.Partial || ie.Elements != tc.rows || ie.Format != tc.format || !errors.Is(err, errSignal) {
				t.Fatalf("err %#v", err)
			}
			for i := 0; i < 5; i++ {
				if got := strings.Contains(out, fmt.Sprintf("row-%d", i)); got != (i < tc.rows) {
					t.Errorf("row-%d written: %v\n%s", i, got, out)
				}
			}
			switch tc.format {
			case "json":
				if json.Valid([]byte(out)) || !strings.HasPrefix(whole, out) {
					t.Errorf("the cut JSON is valid, or not the whole one's beginning:\n%s", out)
				}
			case "yaml":
				var v any
				body, ok := strings.CutSuffix(out, cutYAML)
				if yaml.Unmarshal([]byte(out), &v) == nil || !ok || !strings.HasPrefix(whole, body) {
					t.Errorf("the cut YAML parses, or does not end in the cut line after the whole one's beginning:\n%s", out)
				}
			case "table":
				if !strings.HasPrefix(whole, out) || strings.Contains(out, "footer") || strings.HasSuffix(out, "+\n") {
					t.Errorf("the cut table:\n%s", out)
				}
			default:
				if !strings.HasPrefix(whole, out) {
					t.Errorf("the cut lines are not the whole output's first:\n%s\nwhole:\n%s", out, whole)
				}
			}
		})
	}
}

// TestTableStoppedWhileMeasuringDrawsNothing: a table stopped in its
// first walk (the widths) has drawn nothing yet, and draws nothing.
func TestTableStoppedWhileMeasuringDrawsNothing(t *testing.T) {
	out, _, err := cutRun(t, "table", 3)
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Partial || out != "" {
		t.Errorf("err %v, written:\n%s", err, out)
	}
}
