package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schema is the part of a JSON Schema that the command reads: the
// properties of a tool's input or of an elicitation's requested schema,
// in the order the server wrote them.
type schema struct {
	Type        any                `json:"type"` // a name or a list of names
	Title       string             `json:"title"`
	Description string             `json:"description"`
	Properties  map[string]*schema `json:"properties"`
	Required    []string           `json:"required"`
	Default     json.RawMessage    `json:"default"`
	Enum        []any              `json:"enum"`
	OneOf       []struct {
		Const any    `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	Format string `json:"format"`

	raw   json.RawMessage
	order []string // of Properties
}

// parseSchema decodes a schema and the order of its properties.
func parseSchema(raw json.RawMessage) (*schema, error) {
	var s schema
	if len(bytes.TrimSpace(raw)) == 0 {
		return &s, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	s.raw = raw
	var props struct {
		Properties json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(raw, &props)
	s.order = objectKeys(props.Properties)
	for name, p := range s.Properties {
		if p == nil {
			s.Properties[name] = &schema{}
			continue
		}
		var each map[string]json.RawMessage
		if json.Unmarshal(props.Properties, &each) == nil {
			p.raw = each[name]
		}
	}
	return &s, nil
}

// objectKeys returns the keys of a JSON object in document order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

func (s *schema) required(name string) bool { return slices.Contains(s.Required, name) }

// typeName is the property's type, "any" when the schema names none.
func (s *schema) typeName() string {
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if n, ok := v.(string); ok && n != "null" {
				return n
			}
		}
	}
	switch {
	case len(s.Enum) > 0 || len(s.OneOf) > 0:
		return "string"
	case len(s.Properties) > 0:
		return "object"
	}
	return "any"
}

// choices are the values an enum property allows, with their titles.
func (s *schema) choices() (values []any, titles []string) {
	for _, o := range s.OneOf {
		values = append(values, o.Const)
		titles = append(titles, o.Title)
	}
	for _, v := range s.Enum {
		values = append(values, v)
		titles = append(titles, "")
	}
	return values, titles
}

// convert reads a value typed by a person as the property's type.
func (s *schema) convert(text string) (any, error) {
	switch s.typeName() {
	case "string":
		return text, nil
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", text)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "y", "yes", "true", "1":
			return true, nil
		case "n", "no", "false", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not yes or no", text)
	}
	return jsonOrString(text), nil
}

// jsonOrString is text as JSON when it parses as JSON, else as a string.
func jsonOrString(text string) any {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err == nil {
		return v
	}
	return text
}

// validator checks values against a schema.
type validator struct{ s *jsonschema.Schema }

// compile compiles raw, a JSON Schema, for validation.
func compile(raw json.RawMessage) (*validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		return nil, err
	}
	return &validator{s}, nil
}

// check validates v, given as Go values, against the schema, with the
// error in a line.
func (v *validator) check(value any) error {
	b, err := json.Marshal(value)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := v.s.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%s", strings.TrimSpace(lastLine(ve.Error())))
		}
		return err
	}
	return nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
