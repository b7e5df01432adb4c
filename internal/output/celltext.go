package output

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Results fill cells with typed values (nova.SecretMode, result.Status,
// OrphanKind): encoded as JSON, a table's mode showed `"user"` and CSV
// `"""user"""`. Text formats show a typed value as its plain equivalent
// would show; JSON stays for what has no text form (a struct, a []int).

var stringerType = reflect.TypeFor[fmt.Stringer]()

// typedText renders a value cellString has no case for.
func typedText(v any) string {
	if s, ok := textForm(reflect.ValueOf(v)); ok {
		return s
	}
	b, err := json.Marshal(jsonValue(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// textForm is v's text: a TextMarshaler's (what encoding/json writes as
// its string), a Stringer's, a named string, bool or number's underlying
// value, what a pointer points at (nil shows as a nil cell does), and a
// list or map of such values as lines, the way []string and
// map[string]string show. ok false: v has no text form.
func textForm(v reflect.Value) (s string, ok bool) {
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", true
		}
	}
	if !v.IsValid() {
		return "", true
	}
	if s, ok := methodText(v); ok {
		return s, true
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		return textForm(v.Elem())
	case reflect.String:
		return v.String(), true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return fmt.Sprint(v.Interface()), true
	case reflect.Slice, reflect.Array:
		return listText(v)
	case reflect.Map:
		return mapText(v)
	}
	return "", false
}

// methodText: the value says how it reads, the way encoding/json (text
// first) or fmt would ask it.
func methodText(v reflect.Value) (string, bool) {
	if !v.CanInterface() {
		return "", false
	}
	switch x := v.Interface().(type) {
	case encoding.TextMarshaler:
		b, err := x.MarshalText()
		return string(b), err == nil
	case fmt.Stringer:
		return x.String(), true
	}
	return "", false
}

// textElem: values of type t are strings to a reader (their JSON is a
// string, or they say how they read), so a list of them is a []string.
func textElem(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer && !hasTextMethod(t) {
		t = t.Elem()
	}
	return t.Kind() == reflect.String || hasTextMethod(t)
}

func hasTextMethod(t reflect.Type) bool {
	return t.Implements(textType) || t.Implements(stringerType)
}

// listText shows a list of text values one per line; other lists keep
// their JSON ([]int is [1,2], as before).
func listText(v reflect.Value) (string, bool) {
	if !textElem(v.Type().Elem()) {
		return "", false
	}
	lines := make([]string, v.Len())
	for i := range lines {
		s, ok := textForm(v.Index(i))
		if !ok {
			return "", false
		}
		lines[i] = s
	}
	return strings.Join(lines, "\n"), true
}

// mapText shows text values by name as key=value lines in key order.
func mapText(v reflect.Value) (string, bool) {
	if v.Type().Key().Kind() != reflect.String || !textElem(v.Type().Elem()) {
		return "", false
	}
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	lines := make([]string, len(keys))
	for i, k := range keys {
		s, ok := textForm(v.MapIndex(k))
		if !ok {
			return "", false
		}
		lines[i] = k.String() + "=" + s
	}
	return strings.Join(lines, "\n"), true
}

// Text is v as a table cell shows it: a typed value's plain text, for a
// footer line that names one.
func Text(v any) string { return cellString(v) }
