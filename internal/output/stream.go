package output

import (
	"bufio"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strings"
)

// A 50,000-guest audit is ~100 MB of JSON: json.MarshalIndent built it
// whole (twice: compact, then indented) and it was copied into a string.
// streamJSON writes the top level itself, a list element or a struct
// field at a time, each with json.MarshalIndent at its depth, so the
// bytes are exactly MarshalIndent's and no more than one element is held.

func writeJSON(w io.Writer, v any) error {
	switch l := v.(type) { // its MarshalJSON is the rows
	case List:
		v = rowsOf(l.Rows)
	case *List:
		v = rowsOf(l.Rows)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := streamJSON(bw, reflect.ValueOf(v), ""); err != nil {
		return err
	}
	bw.WriteString("\n")
	return bw.Flush()
}

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// custom: the type marshals itself (either method set: encoding/json
// calls a pointer method when the value is addressable).
func custom(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(marshalerType) || t.Implements(textType) || pt.Implements(marshalerType) || pt.Implements(textType)
}

func streamJSON(w *bufio.Writer, v reflect.Value, prefix string) error {
	if v.IsValid() && !custom(v.Type()) {
		switch {
		case v.Kind() == reflect.Pointer && !v.IsNil():
			return streamJSON(w, v.Elem(), prefix)
		case v.Kind() == reflect.Slice && !v.IsNil() && v.Type().Elem().Kind() != reflect.Uint8, v.Kind() == reflect.Array:
			return streamList(w, v, prefix)
		case v.Kind() == reflect.Struct && plainStruct(v.Type()):
			return streamStruct(w, v, prefix)
		}
	}
	var x any
	if v.CanAddr() {
		x = v.Addr().Interface()
	} else if v.IsValid() {
		x = v.Interface()
	}
	b, err := json.MarshalIndent(x, prefix, "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func streamList(w *bufio.Writer, v reflect.Value, prefix string) error {
	if v.Len() == 0 {
		_, err := w.WriteString("[]")
		return err
	}
	w.WriteString("[")
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n" + prefix + "  ")
		if err := streamJSON(w, v.Index(i), prefix+"  "); err != nil {
			return err
		}
	}
	_, err := w.WriteString("\n" + prefix + "]")
	return err
}

// plainStruct: fields whose JSON rules this file follows (a name, "-",
// omitempty); anything else (embedded structs, ",string", unexported
// fields with tags) is left to encoding/json whole.
func plainStruct(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			return false
		}
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		for _, o := range strings.Split(opts, ",") {
			if o != "" && o != "omitempty" {
				return false
			}
		}
	}
	return true
}

func streamStruct(w *bufio.Writer, v reflect.Value, prefix string) error {
	n := 0
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if opts == "omitempty" && isEmpty(v.Field(i)) {
			continue
		}
		if n == 0 {
			w.WriteString("{")
		} else {
			w.WriteString(",")
		}
		n++
		k, _ := json.Marshal(name)
		w.WriteString("\n" + prefix + "  ")
		w.Write(k)
		w.WriteString(": ")
		if err := streamJSON(w, v.Field(i), prefix+"  "); err != nil {
			return err
		}
	}
	if n == 0 {
		_, err := w.WriteString("{}")
		return err
	}
	_, err := w.WriteString("\n" + prefix + "}")
	return err
}

// isEmpty is encoding/json's omitempty rule.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
