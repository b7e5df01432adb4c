package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// TestStreamEmbeddedProperty: over random struct types that embed one
// another (by value and pointer, tagged or not, the same type twice, names
// colliding across depths) filled with random values, the streamed bytes
// are MarshalIndent's, and the streamed YAML the whole document's.
func TestStreamEmbeddedProperty(t *testing.T) {
	r := rand.New(rand.NewSource(20))
	pool := []reflect.Type{reflect.TypeFor[Base](), reflect.TypeFor[Other](), reflect.TypeFor[Tagged]()}
	leaves := []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[string](), reflect.TypeFor[[]string](), reflect.TypeFor[*int](), reflect.TypeFor[map[string]int]()}
	tags := []string{"", `json:"a"`, `json:"b,omitempty"`, `json:"-"`, `json:",omitempty"`, `json:"Deep"`, `json:"A"`}
	for n := 0; n < 300; n++ {
		var fs []reflect.StructField
		for i, k := 0, 1+r.Intn(4); i < k; i++ {
			f := reflect.StructField{Name: fmt.Sprintf("%c", 'A'+i), Tag: reflect.StructTag(tags[r.Intn(len(tags))])}
			switch r.Intn(3) {
			case 0:
				f.Type = leaves[r.Intn(len(leaves))]
			default:
				// mostly the first types: the same one twice at a depth
				f.Type, f.Anonymous, f.Name = pool[r.Intn(min(len(pool), 6))], true, fmt.Sprintf("E%d", i)
				if r.Intn(3) == 0 {
					f.Type = pool[r.Intn(len(pool))]
				}
				if r.Intn(3) == 0 {
					f.Type = reflect.PointerTo(f.Type)
				}
			}
			fs = append(fs, f)
		}
		typ := reflect.StructOf(fs)
		pool = append(pool, typ)
		if _, ok := structFields(typ); !ok {
			t.Fatalf("%v not streamed", typ)
		}
		for k := 0; k < 5; k++ {
			v := reflect.New(typ)
			Fill(v.Elem(), r, 0)
			for _, x := range []any{v.Interface(), v.Elem().Interface()} {
				var got bytes.Buffer
				if err := writeJSON(&got, x); err != nil {
					t.Fatal(err)
				}
				want, err := json.MarshalIndent(x, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if got.String() != string(want)+"\n" {
					t.Fatalf("%v:\n%s\nwant\n%s", typ, got.String(), want)
				}
				var gotY, wantY bytes.Buffer
				if err := writeTypedYAML(&gotY, x); err != nil {
					t.Fatal(err)
				}
				if err := writeTypedYAMLWhole(&wantY, x); err != nil {
					t.Fatal(err)
				}
				if gotY.String() != wantY.String() {
					t.Fatalf("%v yaml:\n%s\nwant\n%s", typ, gotY.String(), wantY.String())
				}
			}
		}
	}
}
