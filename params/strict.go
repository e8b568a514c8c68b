package params

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/specter-mcp/specter/internal/jsonscan"
)

// maxAmbiguities bounds the errors one call reports about its keys, so
// that a body made of repeated keys cannot make a huge answer.
const maxAmbiguities = 8

// ambiguities walks the arguments, as JSON text, along n and reports keys
// that decoders could read differently, before any decoder has picked one
// reading:
//
//   - a key given twice in one object, anywhere in the arguments (one
//     decoder keeps the first, encoding/json the last);
//   - in an object whose properties are declared (a struct, an Object with
//     fields, the top level), a key that differs from a declared name only
//     in case: encoding/json binds "REGION" to the field "region", while
//     JSON Schema, the Mcp-Param-* header check and most gateways treat it
//     as another key.
//
// data must be valid JSON. A nil n checks repeats only.
func ambiguities(n *node, data []byte) []FieldError {
	var c checker
	c.keys(n, data)
	return c.errs
}

// keys checks the value data against n; see ambiguities. Keys are made
// strings, for the path, only to descend into a container or to report.
func (c *checker) keys(n *node, data []byte) {
	if len(data) == 0 || len(c.errs) >= maxAmbiguities {
		return
	}
	switch data[0] {
	case '[':
		var items *node
		if n != nil {
			items = n.items
		}
		a, _ := jsonscan.Elements(data)
		for i := 0; ; i++ {
			v, ok := a.Next()
			if !ok {
				return
			}
			if container(v) {
				c.push(segment{index: i})
				c.keys(items, v)
				c.pop()
			}
		}
	case '{':
		declared := n != nil && n.kind == kindObject && n.values == nil && !n.open
		inMap := n != nil && n.values != nil
		o, _ := jsonscan.Members(data)
		var seen jsonscan.Set
		for len(c.errs) < maxAmbiguities {
			key, v, ok := o.Next()
			if !ok {
				return
			}
			var sub *node
			switch {
			case seen.Add(key):
				c.push(segment{key: string(key), index: -1, inMap: inMap})
				c.errs = append(c.errs, FieldError{Path: c.at(), Rule: "duplicate",
					Message: subject(c.at()) + " is given twice; give each argument once"})
				c.pop()
				continue
			case inMap:
				sub = n.values
			case declared:
				if sub = lookup(n, key); sub == nil {
					if f := foldedProperty(n, key); f != nil {
						c.caseError(key, f.name)
						continue
					}
				}
			}
			if container(v) {
				c.push(segment{key: string(key), index: -1, inMap: inMap})
				c.keys(sub, v)
				c.pop()
			}
		}
	}
}

// caseError reports key, which stands for the property name.
func (c *checker) caseError(key []byte, name string) {
	want := pathString(append(c.path, segment{key: name, index: -1}))
	c.push(segment{key: string(key), index: -1})
	c.errs = append(c.errs, FieldError{Path: c.at(), Rule: "case", Param: name,
		Message: subject(c.at()) + " is not an argument; names are case-sensitive: write " + strconv.Quote(want)})
	c.pop()
}

// container reports whether v may hold keys: an object, or an array with
// a '{' somewhere in its text. Arrays of scalars, such as a list of tags,
// are common and are skipped without building their path.
func container(v []byte) bool {
	return len(v) > 0 && (v[0] == '{' || v[0] == '[' && bytes.IndexByte(v, '{') >= 0)
}

// foldedProperty returns the property of n whose name equals key under
// Unicode case folding, the match encoding/json falls back to.
func foldedProperty(n *node, key []byte) *node {
	for _, f := range n.fields {
		if strings.EqualFold(f.name, string(key)) {
			return f
		}
	}
	return nil
}

// decodedKeys reports the keys of v, decoded arguments, that encoding/json
// would bind to a field of type t whose name differs in case: Values.Decode
// must not give a handler's struct "REGION" as its region field when the
// schema and the header checks saw another key.
func (c *checker) decodedKeys(t reflect.Type, v any) {
	if len(c.errs) >= maxAmbiguities {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType || implements(t, jsonUnmarshalerType) || implements(t, textUnmarshalerType) {
		return
	}
	switch x := v.(type) {
	case Values:
		c.decodedKeys(t, map[string]any(x))
	case map[string]any:
		switch t.Kind() {
		case reflect.Struct:
			fields := fieldsOf(t)
			for _, key := range slices.Sorted(maps.Keys(x)) {
				f := exactField(fields, key)
				if f == nil {
					if f = foldedField(fields, key); f != nil {
						c.caseError([]byte(key), f.name)
					}
					continue
				}
				c.push(segment{key: key, index: -1})
				c.decodedKeys(f.sf.Type, x[key])
				c.pop()
			}
		case reflect.Map:
			for key, e := range x {
				c.push(segment{key: key, index: -1, inMap: true})
				c.decodedKeys(t.Elem(), e)
				c.pop()
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, e := range x {
				c.push(segment{index: i})
				c.decodedKeys(t.Elem(), e)
				c.pop()
			}
		}
	}
}

// structFields caches jsonFields by struct type for decodedKeys.
var structFields sync.Map // reflect.Type → []structField

func fieldsOf(t reflect.Type) []structField {
	if fs, ok := structFields.Load(t); ok {
		return fs.([]structField)
	}
	fs, _ := structFields.LoadOrStore(t, jsonFields(t))
	return fs.([]structField)
}

func exactField(fields []structField, key string) *structField {
	for i := range fields {
		if fields[i].name == key {
			return &fields[i]
		}
	}
	return nil
}

func foldedField(fields []structField, key string) *structField {
	for i := range fields {
		if strings.EqualFold(fields[i].name, key) {
			return &fields[i]
		}
	}
	return nil
}
