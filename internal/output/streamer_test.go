package output

import (
	"bytes"
	"fmt"
	"testing"
)

type streamRow struct {
	ID   string `json:"id"`
	Note string `json:"note,omitempty"`
}

// streamDoc holds its rows, or (walk) gives them only as a walk.
type streamDoc struct {
	Schema string      `json:"schema"`
	Rows   []streamRow `json:"rows"`
	Tail   int         `json:"tail"`
	walk   []streamRow
}

func (d *streamDoc) StreamedList(key string) (func(yield func(any) bool), bool) {
	if key != "rows" || d.walk == nil {
		return nil, false
	}
	return func(yield func(any) bool) {
		for _, r := range d.walk {
			if !yield(&r) {
				return
			}
		}
	}, true
}

// A walked list is written as the held one would be, empty or not, in
// JSON, YAML, and narrowed by -c.
func TestStreamedListWritesTheHeldBytes(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		rows := []streamRow{}
		for i := range n {
			rows = append(rows, streamRow{ID: fmt.Sprintf("r%d", i), Note: map[bool]string{true: "odd"}[i%2 == 1]})
		}
		for _, o := range []Options{{Format: "json"}, {Format: "yaml"}, {Format: "json", Columns: []string{"id"}}} {
			t.Run(fmt.Sprintf("%d/%s/%v", n, o.Format, o.Columns), func(t *testing.T) {
				var want, got bytes.Buffer
				if err := Write(&want, o, &streamDoc{Schema: "s/1", Rows: rows, Tail: 7}); err != nil {
					t.Fatal(err)
				}
				if err := Write(&got, o, &streamDoc{Schema: "s/1", Tail: 7, walk: rows}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(want.Bytes(), got.Bytes()) {
					t.Fatalf("held:\n%s\nwalked:\n%s", want.String(), got.String())
				}
			})
		}
	}
}
