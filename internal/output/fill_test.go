package output

import (
	"math/rand"
	"reflect"
)

var words = []string{"", "a", "<b&c>", "PASS", "ünï", "x\ny"}

// Fill sets v's settable parts at random: slices nil, empty or 1–3
// elements, pointers nil or set, small maps; unexported fields and
// interfaces stay zero (the results have neither where it matters).
func Fill(v reflect.Value, r *rand.Rand, depth int) { FillWith(v, r, depth, words) }

// FillWith is Fill with strings drawn from words.
func FillWith(v reflect.Value, r *rand.Rand, depth int, words []string) {
	if !v.CanSet() || depth > 6 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(words[r.Intn(len(words))])
	case reflect.Bool:
		v.SetBool(r.Intn(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.Intn(5) - 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.Intn(3)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(r.Intn(7)) / 4)
	case reflect.Pointer:
		if r.Intn(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			FillWith(v.Elem(), r, depth+1, words)
		}
	case reflect.Slice:
		if n := r.Intn(5) - 1; n >= 0 {
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := 0; i < n; i++ {
				FillWith(v.Index(i), r, depth+1, words)
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			FillWith(v.Index(i), r, depth+1, words)
		}
	case reflect.Map:
		if r.Intn(3) > 0 {
			v.Set(reflect.MakeMap(v.Type()))
			for i := r.Intn(3); i > 0; i-- {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				FillWith(k, r, depth+1, words)
				FillWith(e, r, depth+1, words)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			FillWith(v.Field(i), r, depth+1, words)
		}
	}
}
