package params

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Values holds validated arguments. Values are normalized: strings,
// int64 for integers, float64 for other numbers, bool, []any for arrays
// and Values for objects. (A number too large for float64 stays a
// json.Number, and a uint64 struct field above math.MaxInt64 a uint64.)
// The accessors return the zero value when a key is absent or holds
// another type.
type Values map[string]any

// Get returns the value of key and whether it is present.
func (v Values) Get(key string) (any, bool) {
	x, ok := v[key]
	return x, ok
}

// Has reports whether key is present.
func (v Values) Has(key string) bool {
	_, ok := v[key]
	return ok
}

// String returns the string value of key.
func (v Values) String(key string) string {
	s, _ := v[key].(string)
	return s
}

// Int returns the integer value of key as an int.
func (v Values) Int(key string) int {
	return int(v.Int64(key))
}

// Int64 returns the integer value of key.
func (v Values) Int64(key string) int64 {
	i, _ := v[key].(int64)
	return i
}

// Float returns the numeric value of key; integers are converted.
func (v Values) Float(key string) float64 {
	switch x := v[key].(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	}
	return 0
}

// Bool returns the boolean value of key.
func (v Values) Bool(key string) bool {
	b, _ := v[key].(bool)
	return b
}

// Strings returns the value of key if it is an array of strings.
func (v Values) Strings(key string) []string {
	switch x := v[key].(type) {
	case []string:
		return x
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil
			}
			out[i] = s
		}
		return out
	}
	return nil
}

// Object returns the value of key if it is an object.
func (v Values) Object(key string) Values {
	switch x := v[key].(type) {
	case Values:
		return x
	case map[string]any:
		return x
	}
	return nil
}

// Decode stores the values in dst, typically a pointer to a struct, by a
// JSON round trip. Keys bind to struct fields of exactly their name: a key
// that differs from a field's JSON name only in case, which encoding/json
// would bind to that field, is reported in a [*ValidationError].
func (v Values) Decode(dst any) error {
	if t := reflect.TypeOf(dst); t != nil && t.Kind() == reflect.Pointer {
		c := checker{}
		c.decodedKeys(t.Elem(), map[string]any(v))
		if len(c.errs) > 0 {
			return &ValidationError{Fields: c.errs}
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("params: encoding values: %w", err)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return fmt.Errorf("params: decoding values: %w", err)
	}
	return nil
}
