package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
)

// A document is a result's JSON object, a top-level key at a time: what
// json and yaml stream (stream.go, yamlstream.go), and what -c narrows.
//
// -c in json and yaml keeps the document: its schema, summary and every
// other key stay as they are, and each object of the list the table draws
// (Table.Key) keeps only the chosen fields, in the order -c names them.
// The fields are the keys of those objects (which is what the table's
// columns are called wherever the two agree); an unknown one is a
// ColumnError, as an unknown column is.

// docField is one key of a document and its value.
type docField struct {
	key []byte // quoted, as MarshalIndent writes it
	val reflect.Value
}

func field(name string, v any) docField {
	k, _ := json.Marshal(name)
	return docField{key: k, val: reflect.ValueOf(v)}
}

// fields is a List's document with rows as its list.
func (l List) fields(rows []Record) []docField {
	fs := []docField{field(SchemaField, l.Schema), field(l.key(), rowsOf(rows))}
	for _, f := range l.Extra {
		fs = append(fs, field(f.Name, jsonValue(f.Value)))
	}
	return fs
}

// structDoc is v's keys as encoding/json writes them: a nil embedded
// pointer drops its keys, omitempty drops an empty value.
func structDoc(v reflect.Value, fields []jsonField) []docField {
	out := make([]docField, 0, len(fields))
next:
	for _, f := range fields {
		fv, ok := fieldValue(v, f)
		if !ok {
			continue next
		}
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		out = append(out, docField{key: f.key, val: fv})
	}
	return out
}

// fieldValue walks f's index from v; false under a nil embedded pointer.
func fieldValue(v reflect.Value, f jsonField) (reflect.Value, bool) {
	for _, i := range f.index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

func asList(v any) (List, bool) {
	switch l := v.(type) {
	case List:
		return l, true
	case *List:
		return *l, l != nil
	}
	return List{}, false
}

// narrowed is v's document with the objects of its list key narrowed to
// want (see the top of this file).
func narrowed(v any, key string, want []string) ([]docField, error) {
	if l, ok := asList(v); ok {
		idx, err := columnIndexes(l.Columns, want)
		if err != nil {
			return nil, err
		}
		rows := make([]Record, len(l.Rows))
		for i, r := range l.Rows {
			rows[i] = make(Record, len(idx))
			for k, j := range idx {
				rows[i][k] = r[j]
			}
		}
		return l.fields(rows), nil
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	var fields []jsonField
	ok := rv.Kind() == reflect.Struct
	if ok {
		fields, ok = structFields(rv.Type())
	}
	var list *jsonField
	for i := range fields {
		if fields[i].name == key {
			list = &fields[i]
		}
	}
	if !ok || list == nil {
		return nil, fmt.Errorf("output: %T has no list %q for -c to narrow", v, key)
	}
	lt := rv.Type().FieldByIndex(list.index).Type
	if lt.Kind() != reflect.Slice && lt.Kind() != reflect.Array {
		return nil, fmt.Errorf("output: %T: %q is not a list", v, key)
	}
	doc := streamedDoc(rv, fields, true)
	var lv reflect.Value
	at := -1
	for i, f := range doc {
		if bytes.Equal(f.key, list.key) {
			lv, at = f.val, i
		}
	}
	rows, err := narrowRows(lt.Elem(), lv, want)
	if err != nil || at < 0 {
		return doc, err // an omitted empty list: nothing to narrow
	}
	doc[at].val = reflect.ValueOf(rows)
	return doc, nil
}

// narrowRows is each object of the list lv (elements of type et) with
// only the fields want names. An invalid lv checks want alone.
func narrowRows(et reflect.Type, lv reflect.Value, want []string) ([]orderedMap, error) {
	st := et
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	var sel []jsonField
	if st.Kind() == reflect.Struct && !custom(st) && !custom(et) {
		fields, ok := structFields(st)
		if ok {
			var err error
			if sel, err = selectJSONFields(fields, want); err != nil {
				return nil, err
			}
		}
	}
	n := 0
	if lv.IsValid() {
		n = lv.Len()
	}
	out := make([]orderedMap, n)
	for i := range out {
		ev := lv.Index(i)
		if sel == nil {
			m, err := narrowJSON(ev, want)
			if err != nil {
				return nil, err
			}
			out[i] = m
			continue
		}
		for ev.Kind() == reflect.Pointer && !ev.IsNil() {
			ev = ev.Elem()
		}
		m := orderedMap{}
		for _, f := range sel {
			fv, ok := fieldValue(ev, f)
			if !ok || ev.Kind() != reflect.Struct || f.omitEmpty && isEmpty(fv) {
				continue
			}
			m = append(m, Field{Name: f.name, Value: valueOf(fv)})
		}
		out[i] = m
	}
	return out, nil
}

func valueOf(v reflect.Value) any {
	if v.CanAddr() { // encoding/json calls pointer methods in place
		return v.Addr().Interface()
	}
	return v.Interface()
}

func selectJSONFields(fields []jsonField, want []string) ([]jsonField, error) {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	idx, err := columnIndexes(names, want)
	if err != nil {
		return nil, err
	}
	sel := make([]jsonField, len(idx))
	for k, j := range idx {
		sel[k] = fields[j]
	}
	return sel, nil
}

// narrowJSON narrows an object that marshals itself, by its JSON keys.
func narrowJSON(v reflect.Value, want []string) (orderedMap, error) {
	b, err := json.Marshal(valueOf(v))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	vals := map[string]json.RawMessage{}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("output: -c: a row of %s is not an object", v.Type())
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		vals[t.(string)] = raw
	}
	idx, err := columnIndexes(keys, want)
	if err != nil {
		return nil, err
	}
	m := make(orderedMap, len(idx))
	for k, j := range idx {
		m[k] = Field{Name: keys[j], Value: vals[keys[j]]}
	}
	return m, nil
}

// streamFields writes a document's keys as MarshalIndent would at prefix.
func streamFields(w *jsonWriter, fs []docField, prefix string) error {
	if len(fs) == 0 {
		_, err := w.WriteString("{}")
		return err
	}
	for i, f := range fs {
		if i == 0 {
			w.WriteString("{")
		} else {
			w.WriteString(",")
		}
		w.WriteString("\n" + prefix + "  ")
		w.Write(f.key)
		w.WriteString(": ")
		if err := streamJSON(w, f.val, prefix+"  "); err != nil {
			return err
		}
	}
	_, err := w.WriteString("\n" + prefix + "}")
	return err
}

func writeJSONDoc(w io.Writer, fs []docField) error {
	bw := &jsonWriter{Writer: bufio.NewWriterSize(w, 64<<10)}
	if err := streamFields(bw, fs, ""); err != nil {
		return err
	}
	bw.WriteString("\n")
	return bw.Flush()
}

// writeYAMLDoc writes a document's keys, a list under a key an element at
// a time (see streamYAML). Stopped (the run's context done) in a
// streamed list, it writes out the elements written whole, then cutYAML
// (interrupt.go).
func writeYAMLDoc(w io.Writer, fs []docField, stop stopper) error {
	if len(fs) == 0 {
		return yamlOfJSON(w, []byte("{}"))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, f := range fs {
		if f.val.IsValid() && f.val.Type() == walkedType {
			n := 0
			err := f.val.Interface().(walkedList).each(func(i int, e reflect.Value) error {
				if err := stop.stopped(); err != nil {
					bw.WriteString(cutYAML)
					bw.Flush()
					return cut(err, n)
				}
				n++
				return yamlKey(bw, f.key, jsonOf(e.Elem()), true, i > 0)
			})
			if err == nil && n == 0 {
				err = yamlKey(bw, f.key, func() ([]byte, error) { return []byte("[]"), nil }, false, false)
			}
			if err != nil {
				return err
			}
			continue
		}
		if !listOfRows(f.val) {
			if err := yamlKey(bw, f.key, jsonOf(f.val), false, false); err != nil {
				return err
			}
			continue
		}
		for i := 0; i < f.val.Len(); i++ {
			if err := yamlKey(bw, f.key, jsonOf(f.val.Index(i)), true, i > 0); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
