package output

import (
	"bufio"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
)

// A 50,000-guest audit is ~100 MB of JSON: json.MarshalIndent built it
// whole (twice: compact, then indented) and it was copied into a string.
// streamJSON writes the top level itself, a list element or a struct
// field at a time, each with json.MarshalIndent at its depth, so the
// bytes are exactly MarshalIndent's and no more than one element is held.

func writeJSON(w io.Writer, v any) error { return typedJSON(w, v, nil) }

// typedJSON is writeJSON, a streamed list stopped by stop.
func typedJSON(w io.Writer, v any, stop stopper) error {
	if l, ok := asList(v); ok { // its MarshalJSON is the document, or the rows
		if l.Schema != "" {
			return writeJSONDoc(w, l.fields(l.Rows))
		}
		v = rowsOf(l.Rows)
	}
	bw := &jsonWriter{bufio.NewWriterSize(w, 64<<10), stop}
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

const maxDepth = 200

// jsonWriter is the buffer JSON streams through, and the run's stopper
// a streamed list asks before each element.
type jsonWriter struct {
	*bufio.Writer
	stop stopper
}

func streamJSON(w *jsonWriter, v reflect.Value, prefix string) error {
	// past maxDepth (a pointer cycle) encoding/json reports the error
	if v.IsValid() && v.Type() == walkedType {
		return streamWalk(w, v.Interface().(walkedList), prefix)
	}
	if v.IsValid() && !custom(v.Type()) && len(prefix) < 2*maxDepth {
		switch {
		case v.Kind() == reflect.Pointer && !v.IsNil() && v.Type().Elem().Kind() != reflect.Pointer: // **T, type P *P: encoding/json's
			return streamJSON(w, v.Elem(), prefix)
		case v.Kind() == reflect.Slice && !v.IsNil() && v.Type().Elem().Kind() != reflect.Uint8, v.Kind() == reflect.Array:
			return streamList(w, v, prefix)
		case v.Kind() == reflect.Struct:
			if fields, ok := structFields(v.Type()); ok {
				return streamStruct(w, v, prefix, fields)
			}
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

func streamList(w *jsonWriter, v reflect.Value, prefix string) error {
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

// streamWalk writes a streamed list as streamList writes a held one.
// Stopped (the run's context done), it writes out the elements written
// whole and returns: no closing bracket follows (interrupt.go).
func streamWalk(w *jsonWriter, l walkedList, prefix string) error {
	n := 0
	err := l.each(func(i int, e reflect.Value) error {
		if err := w.stop.stopped(); err != nil {
			w.Flush()
			return cut(err, n)
		}
		if i == 0 {
			w.WriteString("[")
		} else {
			w.WriteString(",")
		}
		n++
		w.WriteString("\n" + prefix + "  ")
		// an element is small (a guest's ~2 KB) and the list long:
		// encoding/json writes it whole faster than a walk of its fields
		// (secrets audit at 50,000 guests: 10.9 s -> 9.8 s)
		b, err := json.MarshalIndent(e.Interface(), prefix+"  ", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		_, err = w.WriteString("[]")
		return err
	}
	_, err = w.WriteString("\n" + prefix + "]")
	return err
}

// streamStruct writes the keys structFields finds, a field at a time.
func streamStruct(w *jsonWriter, v reflect.Value, prefix string, fields []jsonField) error {
	return streamFields(w, streamedDoc(v, fields, false), prefix)
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
