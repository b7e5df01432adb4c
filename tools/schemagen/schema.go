package main

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// JSON Schema (draft 2020-12) of a Go type's encoding/json form, by
// reflection: what the struct tags say, nothing from comments. Objects
// allow keys beyond those listed (new fields are additive within a
// schema version) and list none as required (-c narrows a document's
// rows to the chosen fields).

type schema = map[string]any

type generator struct {
	defs map[string]schema
}

var (
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	timeType      = reflect.TypeFor[time.Time]()
)

// defName is a named type's key in $defs: "barbican.GuestResult".
func defName(t reflect.Type) string {
	pkg := t.PkgPath()
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + t.Name()
}

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

func (g *generator) of(t reflect.Type) schema {
	switch {
	case t == timeType:
		return schema{"type": "string", "format": "date-time"}
	case implements(t, marshalerType):
		return schema{} // its own JSON: anything
	case implements(t, textType):
		return schema{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schema{"anyOf": []any{g.of(t.Elem()), schema{"type": "null"}}}
	case reflect.String:
		return schema{"type": "string"}
	case reflect.Bool:
		return schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return schema{"type": "number"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return schema{"type": "string", "contentEncoding": "base64"}
		}
		return schema{"type": []any{"array", "null"}, "items": g.of(t.Elem())}
	case reflect.Array:
		return schema{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return schema{"type": []any{"object", "null"}, "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		name := defName(t)
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // a recursive type refers to itself
			g.defs[name] = g.object(t)
		}
		return schema{"$ref": "#/$defs/" + name}
	}
	return schema{}
}

// object is a struct's keys as encoding/json writes them: embedded
// structs without a tag flattened, the shallower key winning.
func (g *generator) object(t reflect.Type) schema {
	props := schema{}
	var order []string
	g.fields(t, props, &order, map[string]int{}, 0)
	return schema{"type": "object", "properties": props}
}

func (g *generator) fields(t reflect.Type, props schema, order *[]string, depth map[string]int, d int) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct && !implements(et, marshalerType) {
				g.fields(et, props, order, depth, d+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if prev, ok := depth[name]; ok && prev <= d {
			continue
		}
		depth[name] = d
		props[name] = g.of(ft)
		*order = append(*order, name)
	}
}

// document is d's JSON Schema file.
func (g *generator) document(d doc) schema {
	g.defs = map[string]schema{}
	var s schema
	if d.Type != nil {
		s = g.of(d.Type)
		if ref, ok := s["$ref"].(string); ok { // the top level inline
			name := strings.TrimPrefix(ref, "#/$defs/")
			s = g.defs[name]
			delete(g.defs, name)
		}
	} else {
		row := schema{}
		for _, c := range d.Columns {
			row[c] = schema{}
		}
		props := schema{
			"schema": schema{"type": "string"},
			d.Key:    schema{"type": "array", "items": schema{"type": "object", "properties": row}},
		}
		for key, cols := range d.Lists {
			obj := schema{}
			for _, c := range cols {
				obj[c] = schema{}
			}
			props[key] = schema{"type": "array", "items": schema{"type": "object", "properties": obj}}
		}
		s = schema{"type": "object", "properties": props}
	}
	props := s["properties"].(schema)
	props["schema"] = schema{"const": d.Schema}
	out := schema{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/vtpmctl/vtpmctl/docs/schemas/" + fileName(d.Schema),
		"title":       d.Schema,
		"description": "the JSON (and YAML) document of vtpmctl " + strings.Join(d.Commands, ", "),
		"type":        "object",
		"properties":  props,
		"required":    []any{"schema"},
	}
	if len(g.defs) > 0 {
		out["$defs"] = g.defs
	}
	return out
}

// fileName is a schema's file: vtpmctl.secrets-audit/1 is
// vtpmctl.secrets-audit.1.json.
func fileName(name string) string { return strings.ReplaceAll(name, "/", ".") + ".json" }
