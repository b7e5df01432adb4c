package output

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

type inner struct {
	A string   `json:"a"`
	B []string `json:"b,omitempty"`
}

type ptrMarshal struct{ N int }

func (p *ptrMarshal) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

type shape struct {
	Name    string         `json:"name"`
	Skip    string         `json:"-"`
	Empty   []inner        `json:"empty,omitempty"`
	Nil     []inner        `json:"nil"`
	None    []inner        `json:"none"`
	Items   []inner        `json:"items"`
	Ptr     *inner         `json:"ptr"`
	NilPtr  *inner         `json:"nil_ptr"`
	Map     map[string]int `json:"map"`
	When    time.Time      `json:"when"`
	Any     any            `json:"any"`
	Custom  ptrMarshal     `json:"custom"`
	Bytes   []byte         `json:"bytes"`
	NoTag   int
	private int
	HTML    string            `json:"html"`
	Nested  [][]inner         `json:"nested"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// TestStreamJSONExact: streamed JSON is byte for byte json.MarshalIndent's.
func TestStreamJSONExact(t *testing.T) {
	full := shape{Name: "n", Skip: "x", None: []inner{}, Items: []inner{{A: "1", B: []string{"x", "y"}}, {A: "2"}}, Ptr: &inner{A: "p"},
		Map: map[string]int{"b": 2, "a": 1}, When: time.Unix(0, 0).UTC(), Any: []any{1, "x"}, Bytes: []byte("hi"), NoTag: 3,
		HTML: "<a&b>", Nested: [][]inner{{{A: "n"}}, {}}}
	for _, v := range []any{full, &full, shape{}, []shape{full, {}}, []inner{}, rowsOf(bigList().Rows[:3]), bigList(), Record{{"a", 1}}, 7, nil} {
		var got bytes.Buffer
		if err := writeJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if l, ok := v.(List); ok {
			v = rowsOf(l.Rows)
		}
		want, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want)+"\n" {
			t.Errorf("%T:\n%s\nwant\n%s", v, got.String(), want)
		}
	}
}

// TestStreamYAMLExact: a list's YAML written a row at a time is the
// document written whole.
func TestStreamYAMLExact(t *testing.T) {
	l := bigList()
	l.Rows = l.Rows[:50]
	l.Rows = append(l.Rows, Record{{"id", "yes"}, {"name", ""}, {"project", "1.0"}, {"status", "a\nb"}, {"reason", []string{"x", "- y"}}})
	for _, v := range []any{l, &l, List{Columns: []string{"a"}}} {
		var got, want bytes.Buffer
		if err := writeTypedYAML(&got, v); err != nil {
			t.Fatal(err)
		}
		if err := writeTypedYAMLWhole(&want, v); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%T:\n%s\nwant\n%s", v, got.String(), want.String())
		}
	}
}
