package output_test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// TestStreamResults: the two 50,000-guest results embed
// nova.ReleaseContext; they stream (a field and a row at a time) and the
// bytes are MarshalIndent's (yaml: the whole document's), over random
// fillings of the real types.
func TestStreamResults(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, typ := range []reflect.Type{reflect.TypeFor[vtpmsecret.Result](), reflect.TypeFor[fleet.Result]()} {
		if !output.Streams(reflect.Zero(typ).Interface()) {
			t.Errorf("%v is marshalled whole", typ)
		}
		for i := 0; i < 20; i++ {
			v := reflect.New(typ).Elem()
			output.Fill(v, r, 0)
			for _, x := range []any{v.Interface(), ptrTo(v)} {
				var got bytes.Buffer
				if err := output.WriteJSON(&got, x); err != nil {
					t.Fatal(err)
				}
				want, err := json.MarshalIndent(x, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if got.String() != string(want)+"\n" {
					t.Fatalf("%T:\n%s\nwant\n%s", x, got.String(), want)
				}
				var gotY, wantY bytes.Buffer
				if err := output.WriteYAML(&gotY, x); err != nil {
					t.Fatal(err)
				}
				if err := output.WriteYAMLWhole(&wantY, x); err != nil {
					t.Fatal(err)
				}
				if gotY.String() != wantY.String() {
					t.Fatalf("%T yaml:\n%s\nwant\n%s", x, gotY.String(), wantY.String())
				}
			}
		}
	}
}

func ptrTo(v reflect.Value) any {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Interface()
}
