package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
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

// Embedding, as encoding/json flattens it.
type (
	Base struct {
		Rel   string   `json:"rel"`
		Cands []string `json:"cands,omitempty"`
		Name  string   `json:"name"` // hidden by the outer name
		Deep  string
	}
	Other struct {
		Deep string // ties with Base.Deep at one depth: neither
		X    int    `json:"x"`
	}
	Tagged struct {
		Deep string `json:"Deep"` // tagged beats Base's and Other's untagged Deep at one depth
	}
	Level2 struct{ Base }
	Str    string
	unexp  struct{ U string }
	Self   struct {
		*Self
		S int
	}
	embedded struct {
		Name string `json:"name"`
		Base
		*inner
		unexp
		Str
		Ptr   *Other `json:"ptr,omitempty"`
		Named Base   `json:"named"`
		Skip  Base   `json:"-"`
	}
	conflict struct {
		Base
		Other
		Level2
	}
	tagWins struct {
		Base
		Other
		Tagged
	}
	twice struct {
		Level2
		L Level2 `json:"l"`
	}
	Twin   struct{ Base }
	badTag struct {
		N int `json:"a\\b"`
	}
	withTime struct {
		time.Time
		N int
	}
	quoted struct {
		Base
		N int `json:"n,string"`
	}
	omitZ struct {
		N int `json:"n,omitzero"`
	}
	empties struct {
		*Base  `json:"base,omitempty"`
		Other  `json:",omitempty"`
		Tagged `json:"tagged,omitempty"`
	}
)

// dup holds Base twice at one depth: its names annihilate (StructOf:
// vet rejects the repeated tags in a literal type).
var dup = reflect.StructOf([]reflect.StructField{{Name: "Level2", Type: reflect.TypeFor[Level2](), Anonymous: true},
	{Name: "Twin", Type: reflect.TypeFor[Twin](), Anonymous: true}})

func dupOf(a, b string) any {
	v := reflect.New(dup).Elem()
	v.Field(0).Set(reflect.ValueOf(Level2{Base{Rel: a}}))
	v.Field(1).Set(reflect.ValueOf(Twin{Base{Rel: b}}))
	return v.Interface()
}

// TestStreamJSONExact: streamed JSON is byte for byte json.MarshalIndent's.
func TestStreamJSONExact(t *testing.T) {
	full := shape{Name: "n", Skip: "x", None: []inner{}, Items: []inner{{A: "1", B: []string{"x", "y"}}, {A: "2"}}, Ptr: &inner{A: "p"},
		Map: map[string]int{"b": 2, "a": 1}, When: time.Unix(0, 0).UTC(), Any: []any{1, "x"}, Bytes: []byte("hi"), NoTag: 3,
		HTML: "<a&b>", Nested: [][]inner{{{A: "n"}}, {}}}
	emb := embedded{Name: "outer", Base: Base{Rel: "2024.1", Name: "hidden", Deep: "d"}, inner: &inner{A: "in"}, unexp: unexp{U: "u"}, Str: "s",
		Ptr: &Other{X: 1}, Named: Base{Rel: "n"}}
	embeds := []any{emb, &emb, embedded{}, []embedded{emb, {}}, conflict{Base: Base{Deep: "b"}, Other: Other{Deep: "o"}},
		tagWins{Tagged: Tagged{Deep: "t"}}, twice{}, dupOf("1", "2"), badTag{1}, withTime{N: 1}, quoted{N: 2}, omitZ{},
		empties{}, empties{Base: &Base{}}, Self{S: 1, Self: &Self{S: 2}}, struct{ L []Level2 }{[]Level2{{}, {Base{Rel: "x"}}}}}
	loop := &Self{S: 3} // embedded *Self is visited once: {"S": 3}, no cycle
	loop.Self = loop
	embeds = append(embeds, loop)
	for _, v := range append([]any{full, &full, shape{}, []shape{full, {}}, []inner{}, rowsOf(bigList().Rows[:3]), bigList(), schemaList(), Record{{"a", 1}}, 7, nil}, embeds...) {
		var got bytes.Buffer
		if err := writeJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if l, ok := v.(List); ok && l.Schema == "" {
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
	emb := embedded{Name: "outer", Base: Base{Rel: "2024.1", Cands: []string{"a", "b"}, Deep: "x\ny"}, inner: &inner{A: "in", B: []string{"1"}},
		Named: Base{Cands: []string{"c"}}}
	sl := schemaList()
	for _, v := range []any{l, &l, List{Columns: []string{"a"}}, sl, &sl, List{Schema: "s/1", Columns: []string{"a"}}, emb, &emb, embedded{}, empties{}, struct{}{}, shape{}, &node{},
		struct{ L []Level2 }{[]Level2{{}, {Base{Rel: "x", Cands: []string{"- y", ""}}}}}, struct {
			A [2]int
			B []byte
			C []any
		}{B: []byte("hi"), C: []any{1, map[string]int{"k": 1}, []int{}}}} {
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

// TestStreamsEmbedded: embedding alone no longer sends a struct to
// MarshalIndent whole; the options this file doesn't follow still do.
func TestStreamsEmbedded(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{{embedded{}, true}, {conflict{}, true}, {tagWins{}, true}, {dupOf("", ""), true}, {empties{}, true},
		{quoted{}, false}, {omitZ{}, false}, {withTime{}, false}} {
		if got := Streams(c.v); got != c.want {
			t.Errorf("%T streams: %v, want %v", c.v, got, c.want)
		}
	}
}

type node struct {
	Next *node `json:"next"`
}

// TestStreamCycle: a pointer cycle is encoding/json's error, not a
// stack overflow (the streamer hands deep values to MarshalIndent).
func TestStreamCycle(t *testing.T) {
	n := &node{}
	n.Next = n
	for _, v := range []any{n, []*node{n}} {
		var b bytes.Buffer
		var ue *json.UnsupportedValueError
		if err := writeJSON(&b, v); !errors.As(err, &ue) {
			t.Errorf("%T: %v, want a cycle error", v, err)
		}
	}
}

// schemaList is a List with a schema: a document, streamed as one.
func schemaList() List {
	l := bigList()
	l.Rows = l.Rows[:20]
	l.Schema, l.Key = "vtpmctl.test/1", "rows"
	return l
}
