package output

import "reflect"

// Columns are the names -c may give when v is written as format f, taken
// from v's types and table declaration alone, as Write takes them: a
// result with no rows (a command's empty prototype) answers for any
// result of its type. A caller can so refuse a -c before the work that
// would make the result (secrets audit's thousands of requests).
//
// ok is false where -c is not checked against names fixed in advance:
// Write ignores -c (prometheus, markdown), or takes the names from the
// rows themselves (a list whose objects marshal themselves), or v is no
// result Write prints with -c.
func Columns(v any, f Format) (names []string, ok bool) {
	if f == "" {
		f = FormatTable
	}
	doc := f == FormatJSON || f == FormatYAML
	switch f {
	case FormatPrometheus, FormatMarkdown:
		return nil, false
	}
	if r, is := v.(TextRecorder); is && !doc {
		v = r.TextRecord()
	} else if r, is := v.(Recorder); is {
		v = r.Record()
	}
	if r, is := v.(Record); is {
		for _, fd := range r {
			if doc || fd.Name != SchemaField { // the text formats never show it
				names = append(names, fd.Name)
			}
		}
		return names, true
	}
	t, is := v.(Tabular)
	if !is {
		return nil, false
	}
	tb := t.Table()
	if !doc {
		return tb.Columns, true
	}
	if l, is := asList(v); is {
		return l.Columns, true
	}
	return listFields(v, tb.Key)
}

// listFields are the JSON keys of the objects of v's list key, as
// narrowed selects them; false when they are known only from the
// objects (a type that marshals itself) or v has no such list.
func listFields(v any, key string) ([]string, bool) {
	rt := reflect.TypeOf(v)
	for rt != nil && rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt == nil || rt.Kind() != reflect.Struct {
		return nil, false
	}
	fields, ok := structFields(rt)
	if !ok {
		return nil, false
	}
	for _, f := range fields {
		if f.name != key {
			continue
		}
		lt := rt.FieldByIndex(f.index).Type
		if lt.Kind() != reflect.Slice && lt.Kind() != reflect.Array {
			return nil, false
		}
		et := lt.Elem()
		st := et
		for st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		if st.Kind() != reflect.Struct || custom(st) || custom(et) {
			return nil, false
		}
		efs, ok := structFields(st)
		if !ok {
			return nil, false
		}
		names := make([]string, len(efs))
		for i, ef := range efs {
			names[i] = ef.name
		}
		return names, true
	}
	return nil, false
}
