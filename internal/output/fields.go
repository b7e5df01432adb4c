package output

import (
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// jsonField is one key of a struct's JSON object as encoding/json's
// typeFields finds it: index is the path from the outer struct through
// embedded structs (a nil embedded pointer drops the key).
type jsonField struct {
	name      string
	key       []byte // the quoted name as MarshalIndent writes it
	index     []int
	tagged    bool
	omitEmpty bool
}

type structInfo struct {
	fields []jsonField
	ok     bool // false: a rule this file does not follow; MarshalIndent writes it
}

var fieldCache sync.Map // reflect.Type → structInfo

// structFields is encoding/json's typeFields (Go 1.26, encode.go), cached:
// embedded structs flattened breadth first, names resolved by depth, then
// by tag, annihilating ties. Any option but omitempty (",string",
// "omitzero", unknown ones) makes the struct not ok: a fallback never
// writes different bytes.
func structFields(t reflect.Type) ([]jsonField, bool) {
	if s, ok := fieldCache.Load(t); ok {
		return s.(structInfo).fields, s.(structInfo).ok
	}
	fs, ok := typeFields(t)
	s, _ := fieldCache.LoadOrStore(t, structInfo{fs, ok})
	return s.(structInfo).fields, s.(structInfo).ok
}

type queued struct {
	typ   reflect.Type
	index []int
}

func typeFields(t reflect.Type) ([]jsonField, bool) {
	current, next := []queued{}, []queued{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []jsonField
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := 0; i < f.typ.NumField(); i++ {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				omitEmpty := false
				for _, o := range strings.Split(opts, ",") {
					switch o {
					case "":
					case "omitempty":
						omitEmpty = true
					default:
						return nil, false
					}
				}
				if !isValidTag(name) {
					name = ""
				}
				index := append(slices.Clone(f.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					jf := jsonField{name: name, tagged: name != "", index: index, omitEmpty: omitEmpty}
					if name == "" {
						jf.name = sf.Name
					}
					jf.key, _ = json.Marshal(jf.name)
					fields = append(fields, jf)
					if count[f.typ] > 1 {
						// two embeddings of one type at a depth: a duplicate
						// makes the name annihilate below
						fields = append(fields, jf)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{ft, index})
				}
			}
		}
	}
	slices.SortFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return +1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for adv, i := 0, 0; i < len(fields); i += adv {
		for adv = 1; i+adv < len(fields) && fields[i+adv].name == fields[i].name; adv++ {
		}
		// the shallowest (then tagged) field wins; a tie hides them all
		if adv > 1 && len(fields[i].index) == len(fields[i+1].index) && fields[i].tagged == fields[i+1].tagged {
			continue
		}
		out = append(out, fields[i])
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out, true
}

// isValidTag is encoding/json's: an invalid name means the Go name.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
