package params

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled parameter declaration: the inputSchema to publish
// and the validation to run on arguments. It is immutable and safe for
// concurrent use.
type Schema struct {
	json   json.RawMessage
	fields []FieldInfo
	root   *node              // New, Empty
	strct  *structParams      // For, ForType
	raw    *jsonschema.Schema // Raw
	rawTop *node              // Raw: the top-level properties, for the key checks
}

// FieldInfo describes a top-level parameter, for documentation and for
// transports that need to know about headers.
type FieldInfo struct {
	Name        string
	Title       string
	Description string
	// Type is "string", "integer", "number", "boolean", "array", "object",
	// or "" when the schema does not say.
	Type     string
	Required bool
	// Enum lists the allowed values of string enums, including oneof rules.
	Enum []string
	// Header is the x-mcp-header name, or "".
	Header string
}

// JSON returns the inputSchema. Generated schemas have a deterministic key
// order; raw schemas are returned exactly as given. The bytes are a copy.
func (s *Schema) JSON() json.RawMessage {
	if s == nil {
		return Empty().JSON()
	}
	return bytes.Clone(s.json)
}

// Fields describes the top-level parameters in declaration order. For raw
// schemas they are read from the top-level "properties" and "required".
func (s *Schema) Fields() []FieldInfo {
	if s == nil {
		return nil
	}
	out := slices.Clone(s.fields)
	for i := range out {
		out[i].Enum = slices.Clone(out[i].Enum)
	}
	return out
}

// Validate checks args, a JSON object, and returns its declared members
// with defaults applied. Empty args and JSON null count as {}. The error is
// a [*ValidationError] listing every failing argument.
func (s *Schema) Validate(args json.RawMessage) (Values, error) {
	switch {
	case s == nil:
		return Empty().Validate(args)
	case s.raw != nil:
		return s.validateRaw(args)
	case s.strct != nil:
		return s.strct.validate(args)
	}
	obj, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	if errs := ambiguities(s.root, args); errs != nil {
		return nil, &ValidationError{Fields: errs}
	}
	c := checker{strict: true, fill: true, normalize: true, path: make([]segment, 0, 4)}
	c.fields(s.root, obj)
	if len(c.errs) > 0 {
		return nil, &ValidationError{Fields: c.errs}
	}
	return Values(obj), nil
}

// Bind checks args and decodes them into dst, which must be a non-nil
// pointer. For struct schemas and a dst of their type, dst is reset,
// defaults from default tags fill absent fields, and validator checks the
// struct; otherwise Bind validates and then decodes the resulting Values.
// Problems with the arguments are reported as a [*ValidationError].
func (s *Schema) Bind(args json.RawMessage, dst any) error {
	if s != nil && s.strct != nil {
		rv := reflect.ValueOf(dst)
		if rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Type().Elem() == s.strct.typ {
			return s.strct.bind(args, rv)
		}
	}
	v, err := s.Validate(args)
	if err != nil {
		return err
	}
	return v.Decode(dst)
}

// decodeArgs decodes the arguments object, numbers as json.Number. It
// never returns a nil map without an error.
func decodeArgs(args []byte) (map[string]any, error) {
	if len(trimSpace(args)) == 0 {
		return map[string]any{}, nil
	}
	v, err := decodeValue(args)
	if err != nil {
		return nil, invalidJSON(err)
	}
	switch x := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return x, nil
	}
	return nil, notObject(jsonTypeOf(v))
}

func invalidJSON(err error) *ValidationError {
	return &ValidationError{Fields: []FieldError{{
		Rule:    "json",
		Message: "arguments are not valid JSON: " + err.Error(),
	}}}
}

func notObject(got string) *ValidationError {
	return &ValidationError{Fields: []FieldError{{
		Rule:    "type",
		Param:   "object",
		Message: "arguments must be a JSON object, got " + got,
	}}}
}

// trimSpace removes JSON whitespace around data.
func trimSpace(data []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(data) > 0 && isSpace(data[0]) {
		data = data[1:]
	}
	for len(data) > 0 && isSpace(data[len(data)-1]) {
		data = data[:len(data)-1]
	}
	return data
}
