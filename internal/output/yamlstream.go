package output

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// streamYAML writes a struct result's YAML a top-level key at a time and
// a list under such a key an element at a time: secrets audit's result
// at 50,000 guests went through one JSON document and one yaml.Node tree
// (5 GB peak). Each element is written as {key: [element]} and, after
// the first, without the "key:" line: block style puts it at the column
// the whole document would, so the bytes are writeTypedYAMLWhole's.
func streamYAML(w io.Writer, v any, stop stopper) error {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() && !custom(rv.Type()) {
		rv = rv.Elem()
	}
	if !rv.IsValid() || rv.Kind() != reflect.Struct || custom(rv.Type()) {
		return writeTypedYAMLWhole(w, v)
	}
	fields, ok := structFields(rv.Type())
	if !ok {
		return writeTypedYAMLWhole(w, v)
	}
	doc := streamedDoc(rv, fields, false)
	if len(doc) == 0 {
		return writeTypedYAMLWhole(w, v)
	}
	return writeYAMLDoc(w, doc, stop)
}

// listOfRows: a non-empty slice or array encoding/json writes as a list.
func listOfRows(v reflect.Value) bool {
	if custom(v.Type()) || v.Kind() != reflect.Array && v.Kind() != reflect.Slice {
		return false
	}
	return v.Len() > 0 && (v.Kind() == reflect.Array || v.Type().Elem().Kind() != reflect.Uint8)
}

func jsonOf(v reflect.Value) func() ([]byte, error) {
	return func() ([]byte, error) {
		if v.CanAddr() { // encoding/json calls pointer methods in place
			return json.Marshal(v.Addr().Interface())
		}
		return json.Marshal(v.Interface())
	}
}

// yamlKey writes {key: value}, or {key: [element]} (list), without the
// "key:" line when it continues a list.
func yamlKey(w io.Writer, key []byte, val func() ([]byte, error), list, cont bool) error {
	b, err := val()
	if err != nil {
		return err
	}
	doc := append(append([]byte("{"), key...), ':')
	if list {
		doc = append(append(append(doc, '['), b...), ']', '}')
	} else {
		doc = append(append(doc, b...), '}')
	}
	var buf bytes.Buffer
	if err := yamlOfJSON(&buf, doc); err != nil {
		return err
	}
	out := buf.Bytes()
	if cont {
		_, out, _ = bytes.Cut(out, []byte("\n"))
	}
	_, err = w.Write(out)
	return err
}

func yamlOfJSON(w io.Writer, b []byte) error {
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return err
	}
	blockStyle(&n)
	return writeYAML(w, &n)
}
