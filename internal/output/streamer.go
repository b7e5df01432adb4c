package output

import "reflect"

// Streamer is a result with a list it does not hold: StreamedList gives
// the list under key (its JSON name) as a walk, each element a pointer
// to it; ok is false for any other key, or when the list is held. The
// JSON and YAML writers walk it an element at a time, writing the bytes
// the held list would give; -c walks it into a list first.
type Streamer interface {
	StreamedList(key string) (walk func(yield func(any) bool), ok bool)
}

// walkedList is a streamed list in a document's field.
type walkedList struct {
	walk func(yield func(any) bool)
}

var walkedType = reflect.TypeFor[walkedList]()

// streamerOf is v's Streamer, with pointer methods where v is addressable.
func streamerOf(v reflect.Value) (Streamer, bool) {
	if v.CanAddr() {
		if s, ok := v.Addr().Interface().(Streamer); ok {
			return s, true
		}
	}
	if !v.IsValid() || !v.CanInterface() {
		return nil, false
	}
	s, ok := v.Interface().(Streamer)
	return s, ok
}

// streamedDoc is structDoc with v's streamed lists as walks (the
// writers) or, held, walked into lists of their fields' types (what -c
// narrows).
func streamedDoc(v reflect.Value, fields []jsonField, held bool) []docField {
	doc := structDoc(v, fields)
	s, ok := streamerOf(v)
	if !ok {
		return doc
	}
	for _, f := range fields {
		walk, ok := s.StreamedList(f.name)
		if !ok {
			continue
		}
		val := reflect.ValueOf(walkedList{walk})
		if held {
			val = reflect.MakeSlice(v.Type().FieldByIndex(f.index).Type, 0, 0)
			walk(func(e any) bool {
				val = reflect.Append(val, reflect.ValueOf(e).Elem())
				return true
			})
		}
		for j := range doc {
			if string(doc[j].key) == string(f.key) {
				doc[j].val = val
			}
		}
	}
	return doc
}

// each walks a streamed list, stopping at the first error.
func (l walkedList) each(do func(i int, e reflect.Value) error) error {
	var err error
	i := 0
	l.walk(func(e any) bool {
		err = do(i, reflect.ValueOf(e))
		i++
		return err == nil
	})
	return err
}
