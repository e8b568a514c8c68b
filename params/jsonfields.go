package params

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// structField is a struct field as encoding/json sees it.
type structField struct {
	name       string
	tagged     bool  // the name comes from a json tag
	index      []int // path from the struct, through embedded structs
	sf         reflect.StructField
	asString   bool // json ",string" option on a scalar
	viaPointer bool // reached through an embedded pointer
}

// jsonFields lists the fields encoding/json encodes for struct type t, in
// its order, flattening embedded structs with its rules: a shallower field
// hides deeper ones of the same name, a tagged one beats an untagged one
// at the same depth, and otherwise fields of the same name hide each other.
func jsonFields(t reflect.Type) []structField {
	type level struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var found []structField
	visited := map[reflect.Type]bool{}
	next := []level{{typ: t}}
	for len(next) > 0 {
		current := next
		next = nil
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			for i := range lv.typ.NumField() {
				sf := lv.typ.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if sf.Anonymous {
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				name, opts, skip := jsonTag(sf)
				if skip {
					continue
				}
				index := append(slices.Clone(lv.index), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{
						typ:        ft,
						index:      index,
						viaPointer: lv.viaPointer || sf.Type.Kind() == reflect.Pointer,
					})
					continue
				}
				f := structField{
					name:       name,
					tagged:     name != "",
					index:      index,
					sf:         sf,
					viaPointer: lv.viaPointer,
				}
				if f.name == "" {
					f.name = sf.Name
				}
				if hasOption(opts, "string") {
					switch ft.Kind() {
					case reflect.Bool, reflect.String,
						reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64:
						f.asString = true
					}
				}
				found = append(found, f)
			}
		}
		// Marked after the level, so that a type embedded twice at one
		// depth yields duplicate names that hide each other, as in
		// encoding/json.
		for _, lv := range current {
			visited[lv.typ] = true
		}
	}

	slices.SortStableFunc(found, func(a, b structField) int {
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
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := found[:0]
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].name == found[i].name {
			j++
		}
		// found[i] dominates unless its runner-up ties with it.
		if j-i == 1 || len(found[i+1].index) > len(found[i].index) || found[i].tagged != found[i+1].tagged {
			out = append(out, found[i])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b structField) int { return slices.Compare(a.index, b.index) })
	return out
}

// jsonTag returns the name and options of a field's json tag, and whether
// the field is skipped. An invalid name is ignored, as encoding/json does.
func jsonTag(sf reflect.StructField) (name, opts string, skip bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", "", true
	}
	name, opts, _ = strings.Cut(tag, ",")
	if !validJSONName(name) {
		name = ""
	}
	return name, opts, false
}

// jsonName is the field's explicit JSON name, or "".
func jsonName(sf reflect.StructField) (string, bool) {
	name, _, skip := jsonTag(sf)
	return name, skip
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var opt string
		opt, opts, _ = strings.Cut(opts, ",")
		if opt == want {
			return true
		}
	}
	return false
}

// validJSONName mirrors the names encoding/json accepts in tags.
func validJSONName(s string) bool {
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

func isStructOrPointer(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}
