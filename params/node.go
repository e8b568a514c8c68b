package params

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// kind is the JSON type of a parameter.
type kind uint8

const (
	kindAny kind = iota // any JSON value; no "type" in the schema
	kindString
	kindInteger
	kindNumber
	kindBoolean
	kindArray
	kindObject
)

// String returns the JSON Schema type name, or "" for kindAny.
func (k kind) String() string {
	switch k {
	case kindString:
		return "string"
	case kindInteger:
		return "integer"
	case kindNumber:
		return "number"
	case kindBoolean:
		return "boolean"
	case kindArray:
		return "array"
	case kindObject:
		return "object"
	}
	return ""
}

func (k kind) article() string {
	switch k {
	case kindInteger, kindArray, kindObject:
		return "an " + k.String()
	case kindAny:
		return "a JSON value"
	}
	return "a " + k.String()
}

func (k kind) plural() string {
	if k == kindAny {
		return "values of any type"
	}
	return k.String() + "s"
}

func (k kind) scalar() bool {
	return k == kindString || k == kindInteger || k == kindNumber || k == kindBoolean
}

// node is a compiled parameter: everything the call path needs, so that it
// never goes back to the declaration or to reflection.
type node struct {
	name       string
	kind       kind
	required   bool // absent or null is an error (enforced in strict mode)
	hasDefault bool
	def        any              // normalized default, copied into arguments
	enum       []string         // allowed strings (strict mode)
	check      string           // validator tags run on the value (strict mode)
	pattern    *regexp.Regexp   // a string's Pattern
	lengths    []lengthRule     // check, when it only bounds a string's length: run without validator
	items      *node            // array items
	fields     []*node          // object properties, in declaration order
	names      map[string]*node // properties by name, when there are many
	open       bool             // object without declared properties: keep every key
	fillEmpty  bool             // a Go struct value with defaults inside: fill them even when absent
	values     *node            // map values (structs)
	goKind     reflect.Kind     // Go kind of a struct field, for range checks
	arrayLen   int              // length of a Go array
	isTime     bool             // a time.Time: the string must be RFC 3339
}

// declares reports whether an object node has a property named key.
func (n *node) declares(key string) bool { return lookup(n, key) != nil }

// lookup returns the property of object node n named key, or nil.
func lookup[K string | []byte](n *node, key K) *node {
	if n.names != nil {
		return n.names[string(key)]
	}
	for _, f := range n.fields {
		if f.name == string(key) {
			return f
		}
	}
	return nil
}

// indexNames builds the name index of objects with enough properties that
// a map beats a linear scan.
func (n *node) indexNames() {
	if len(n.fields) <= 8 {
		return
	}
	n.names = make(map[string]*node, len(n.fields))
	for _, f := range n.fields {
		n.names[f.name] = f
	}
}

// segment is one step of the path to a value inside the arguments.
type segment struct {
	key   string
	index int  // array index, or -1 for a key
	inMap bool // key of a Go map, written [key] as validator does
}

// pathString renders segments as "address.city", "tags[1]", "limits[a]".
func pathString(segs []segment) string {
	if len(segs) == 1 && segs[0].index < 0 && !segs[0].inMap {
		return segs[0].key
	}
	var b strings.Builder
	for _, sg := range segs {
		switch {
		case sg.index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(sg.index))
			b.WriteByte(']')
		case sg.inMap:
			b.WriteByte('[')
			b.WriteString(sg.key)
			b.WriteByte(']')
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(sg.key)
		}
	}
	return b.String()
}

// checker walks decoded JSON (numbers as json.Number) along compiled nodes.
type checker struct {
	// strict enforces required, enum and validator tags, as declarations
	// made with New need; for structs validator does that on the struct.
	strict bool
	// fill inserts defaults for absent keys.
	fill bool
	// normalize converts values in place to their Values form and drops
	// nulls and undeclared keys. Without it the arguments keep their JSON
	// meaning exactly, for encoding them again.
	normalize bool
	// scrub replaces values of the wrong type with null, so that
	// encoding/json can decode the rest and validator can check it.
	scrub bool
	errs  []FieldError
	// path leads to the value being checked. It is a stack rather than a
	// linked list on the call stack, which escape analysis would move to
	// the heap (golang.org/issue/35518); strings are built only for errors.
	path []segment
}

func (c *checker) push(sg segment) { c.path = append(c.path, sg) }
func (c *checker) pop()            { c.path = c.path[:len(c.path)-1] }
func (c *checker) at() string      { return pathString(c.path) }

// value checks v against n and returns it, normalized if c.normalize.
func (c *checker) value(n *node, v any) any {
	switch n.kind {
	case kindString:
		s, ok := v.(string)
		if !ok {
			c.errs = append(c.errs, typeError(c.at(), kindString, v))
			return c.reject(v)
		}
		if n.isTime {
			if _, err := time.Parse(time.RFC3339, s); err != nil {
				c.errs = append(c.errs, fieldError(c.at(), "datetime", "", kindString))
				return c.reject(v)
			}
		}
		if c.strict && n.enum != nil && !slices.Contains(n.enum, s) {
			c.errs = append(c.errs, enumError(c.at(), n.enum))
			return c.reject(v)
		}
		if n.pattern != nil && !n.pattern.MatchString(s) {
			c.errs = append(c.errs, patternError(c.at(), n.pattern.String()))
			return c.reject(v)
		}
	case kindInteger:
		num, ok := v.(json.Number)
		if !ok {
			c.errs = append(c.errs, typeError(c.at(), kindInteger, v))
			return c.reject(v)
		}
		i, fe := c.integer(n, num)
		if fe != nil {
			c.errs = append(c.errs, *fe)
			return c.reject(v)
		}
		if c.normalize {
			v = i
		}
	case kindNumber:
		num, ok := v.(json.Number)
		if !ok {
			c.errs = append(c.errs, typeError(c.at(), kindNumber, v))
			return c.reject(v)
		}
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil || (n.goKind == reflect.Float32 && math.Abs(f) > math.MaxFloat32) {
			c.errs = append(c.errs, FieldError{Path: c.at(), Rule: "range",
				Message: subject(c.at()) + " is too large a number"})
			return c.reject(v)
		}
		if c.normalize {
			v = f
		}
	case kindBoolean:
		if _, ok := v.(bool); !ok {
			c.errs = append(c.errs, typeError(c.at(), kindBoolean, v))
			return c.reject(v)
		}
	case kindArray:
		arr, ok := v.([]any)
		if !ok {
			c.errs = append(c.errs, typeError(c.at(), kindArray, v))
			return c.reject(v)
		}
		if n.goKind == reflect.Array && len(arr) > n.arrayLen {
			c.errs = append(c.errs, fieldError(c.at(), "max", strconv.Itoa(n.arrayLen), kindArray))
		}
		for i, e := range arr {
			// encoding/json decodes null elements as zero values.
			if e == nil && !c.strict {
				continue
			}
			c.push(segment{index: i})
			e = c.value(n.items, e)
			c.pop()
			if c.normalize || c.scrub {
				arr[i] = e
			}
		}
	case kindObject:
		obj, ok := v.(map[string]any)
		if !ok {
			vals, isValues := v.(Values)
			if !isValues {
				c.errs = append(c.errs, typeError(c.at(), kindObject, v))
				return c.reject(v)
			}
			obj = vals
		}
		switch {
		case n.values != nil:
			c.mapValues(n.values, obj)
		case n.open:
			if c.normalize {
				normalize(obj)
			}
		default:
			c.fields(n, obj)
		}
		if c.normalize {
			v = Values(obj)
		}
	case kindAny:
		if c.normalize {
			v = normalize(v)
		}
	}
	if c.strict && n.check != "" {
		if s, ok := v.(string); ok && n.lengths != nil {
			if r := failedLength(n.lengths, s); r != nil {
				c.errs = append(c.errs, fieldError(c.at(), r.tag, r.param, kindString))
			}
		} else if err := checkValue(v, n.check); err != nil {
			c.errs = append(c.errs, ruleErrors(err, c.at())...)
		}
	}
	return v
}

// reject is what value returns for a value of the wrong type.
func (c *checker) reject(v any) any {
	if c.scrub {
		return nil
	}
	return v
}

// fields checks the declared properties of obj.
func (c *checker) fields(n *node, obj map[string]any) {
	kept := 0
	for _, f := range n.fields {
		v, present := obj[f.name]
		if present && v == nil {
			// null is absent: an LLM often sends it for "no value".
			present = false
			if c.normalize {
				delete(obj, f.name)
			}
		}
		if !present {
			switch {
			case f.hasDefault:
				if c.fill {
					obj[f.name] = cloneValue(f.def)
					kept++
				}
			case f.fillEmpty:
				// A struct value exists even when its key is absent, so
				// its fields' defaults apply: the same as at the top level.
				if c.fill {
					c.push(segment{key: f.name, index: -1})
					obj[f.name] = c.value(f, map[string]any{})
					c.pop()
					kept++
				}
			case f.required && c.strict:
				c.push(segment{key: f.name, index: -1})
				c.errs = append(c.errs, fieldError(c.at(), "required", "", f.kind))
				c.pop()
			}
			continue
		}
		kept++
		c.push(segment{key: f.name, index: -1})
		v = c.value(f, v)
		c.pop()
		if c.normalize || c.scrub {
			obj[f.name] = v
		}
	}
	if c.normalize && len(obj) > kept {
		for key := range obj {
			if !n.declares(key) {
				delete(obj, key)
			}
		}
	}
}

// mapValues checks the values of a Go map.
func (c *checker) mapValues(n *node, obj map[string]any) {
	for key, v := range obj {
		if v == nil {
			continue
		}
		c.push(segment{key: key, index: -1, inMap: true})
		v = c.value(n, v)
		c.pop()
		if c.normalize || c.scrub {
			obj[key] = v
		}
	}
}

// integer converts num for an integer node. Any integral value is accepted
// for declared parameters (2.0 is 2); struct fields follow encoding/json,
// which wants plain digits and the Go type's range.
func (c *checker) integer(n *node, num json.Number) (any, *FieldError) {
	s := string(num)
	lo, hi := intRange(n.goKind)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		switch {
		case i < lo:
			return nil, boundError(c.at(), "min", strconv.FormatInt(lo, 10))
		case i > 0 && uint64(i) > hi:
			return nil, boundError(c.at(), "max", strconv.FormatUint(hi, 10))
		}
		return i, nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		if u > hi || hi <= math.MaxInt64 {
			return nil, boundError(c.at(), "max", strconv.FormatUint(hi, 10))
		}
		// Only a uint64 field gets here; int64 cannot hold the value.
		return u, nil
	}
	// Not a plain integer in range: a fraction, an exponent, or too large.
	f, err := strconv.ParseFloat(s, 64) // ±Inf with an error when huge
	plain := !strings.ContainsAny(s, ".eE")
	switch {
	case err == nil && f != math.Trunc(f):
		fe := typeError(c.at(), kindInteger, num)
		return nil, &fe
	case plain || f < math.MinInt64 || f >= math.MaxInt64:
		if f < 0 {
			return nil, boundError(c.at(), "min", strconv.FormatInt(lo, 10))
		}
		return nil, boundError(c.at(), "max", strconv.FormatUint(hi, 10))
	case n.goKind != reflect.Invalid:
		return nil, &FieldError{Path: c.at(), Rule: "type", Param: "integer",
			Message: subject(c.at()) + " must be an integer written without a fraction or exponent, got " + truncate(s)}
	}
	return int64(f), nil
}

// intRange gives the values a Go integer kind holds; declared parameters
// (reflect.Invalid) are int64.
func intRange(k reflect.Kind) (int64, uint64) {
	switch k {
	case reflect.Int8:
		return math.MinInt8, math.MaxInt8
	case reflect.Int16:
		return math.MinInt16, math.MaxInt16
	case reflect.Int32:
		return math.MinInt32, math.MaxInt32
	case reflect.Int:
		return math.MinInt, math.MaxInt
	case reflect.Uint8:
		return 0, math.MaxUint8
	case reflect.Uint16:
		return 0, math.MaxUint16
	case reflect.Uint32:
		return 0, math.MaxUint32
	case reflect.Uint, reflect.Uintptr:
		return 0, math.MaxUint
	case reflect.Uint64:
		return 0, math.MaxUint64
	}
	return math.MinInt64, math.MaxInt64
}

func boundError(path, rule, param string) *FieldError {
	fe := fieldError(path, rule, param, kindInteger)
	return &fe
}

func enumError(path string, values []string) FieldError {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = strconv.Quote(v)
	}
	return FieldError{
		Path:    path,
		Rule:    "enum",
		Param:   strings.Join(values, " "),
		Message: subject(path) + " must be one of: " + strings.Join(quoted, ", "),
	}
}

// truncate shortens echoed input so that a huge argument cannot produce a
// huge message.
func truncate(s string) string {
	const max = 32
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// normalize converts decoded JSON in place to the forms Values promises:
// int64 for integers, float64 for other numbers, Values for objects.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		return normalizeNumber(x)
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return Values(x)
	case Values:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	}
	return v
}

func normalizeNumber(n json.Number) any {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(string(n), 64); err == nil {
		return f
	}
	return n // beyond float64; kept exact rather than turned into Inf
}

// cloneValue deep-copies a normalized value, so that handlers that modify
// a default do not modify it for later calls.
func cloneValue(v any) any {
	switch x := v.(type) {
	case Values:
		y := make(Values, len(x))
		for k, e := range x {
			y[k] = cloneValue(e)
		}
		return y
	case []any:
		y := make([]any, len(x))
		for i, e := range x {
			y[i] = cloneValue(e)
		}
		return y
	}
	return v
}

// jsonTypeOf names the JSON type of a decoded or normalized value.
func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number, int64, float64, uint64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any, Values:
		return "object"
	}
	return "unknown"
}
