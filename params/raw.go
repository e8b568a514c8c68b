package params

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	schemakind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// rawLocation names a raw schema for the compiler; relative $refs resolve
// against it, and nothing is ever loaded from it.
const rawLocation = "urn:specter:params:input"

// Raw compiles a JSON Schema document given by the user. JSON returns the
// document byte for byte, and Validate enforces it, format assertions
// included, with draft 2020-12 unless "$schema" says otherwise, and returns
// the whole arguments object. The top-level "type" must be "object".
// Remote $refs are not fetched.
func Raw(schema []byte) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("params: raw schema is not valid JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("params: raw schema must be a JSON object")
	}
	if t, _ := obj["type"].(string); t != "object" {
		return nil, errors.New(`params: raw schema must have "type": "object" at the top level`)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource(rawLocation, doc); err != nil {
		return nil, fmt.Errorf("params: raw schema: %w", err)
	}
	compiled, err := c.Compile(rawLocation)
	if err != nil {
		return nil, fmt.Errorf("params: raw schema is not a valid JSON Schema: %w", err)
	}
	fields, err := rawFields(schema, obj)
	if err != nil {
		return nil, fmt.Errorf("params: raw schema: %w", err)
	}
	top := &node{kind: kindObject}
	for _, f := range fields {
		top.fields = append(top.fields, &node{name: f.Name})
	}
	top.indexNames()
	return &Schema{json: bytes.Clone(schema), fields: fields, raw: compiled, rawTop: top}, nil
}

// noLoader refuses every external $ref, files included: a schema must be
// complete in itself, and compiling it must not touch the disk or network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s is not loaded", url)
}

// rawFields reads the top-level properties in document order, which the
// decoded map has lost.
func rawFields(schema []byte, doc map[string]any) ([]FieldInfo, error) {
	if _, ok := doc["properties"].(map[string]any); !ok {
		return nil, nil
	}
	required := map[string]bool{}
	if reqs, ok := doc["required"].([]any); ok {
		for _, r := range reqs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, err
	}
	names, err := objectKeys(top["properties"])
	if err != nil {
		return nil, err
	}
	props := doc["properties"].(map[string]any)
	fields := make([]FieldInfo, 0, len(names))
	for _, name := range names {
		info := FieldInfo{Name: name, Required: required[name]}
		if p, ok := props[name].(map[string]any); ok {
			info.Title, _ = p["title"].(string)
			info.Description, _ = p["description"].(string)
			info.Header, _ = p["x-mcp-header"].(string)
			if t, ok := p["type"].(string); ok {
				switch t {
				case "string", "integer", "number", "boolean", "array", "object":
					info.Type = t
				}
			}
			if enum, ok := p["enum"].([]any); ok {
				info.Enum = make([]string, 0, len(enum))
				for _, e := range enum {
					s, ok := e.(string)
					if !ok {
						info.Enum = nil
						break
					}
					info.Enum = append(info.Enum, s)
				}
			}
		}
		fields = append(fields, info)
	}
	return fields, nil
}

// objectKeys returns the keys of a JSON object in document order. A
// repeated key is listed once.
func objectKeys(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New(`"properties" is not an object`)
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		if !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
	}
	return keys, nil
}

// validateRaw validates args with the compiled raw schema.
func (s *Schema) validateRaw(args []byte) (Values, error) {
	obj, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	if errs := ambiguities(s.rawTop, args); errs != nil {
		return nil, &ValidationError{Fields: errs}
	}
	if err := s.raw.Validate(obj); err != nil {
		var verr *jsonschema.ValidationError
		if !errors.As(err, &verr) {
			return nil, &ValidationError{Fields: []FieldError{{Rule: "schema", Message: "arguments could not be validated: " + err.Error()}}}
		}
		var errs []FieldError
		rawErrors(verr, obj, &errs)
		if len(errs) == 0 {
			errs = append(errs, FieldError{Rule: "schema", Message: "arguments do not match the schema"})
		}
		return nil, &ValidationError{Fields: errs}
	}
	normalize(obj)
	return Values(obj), nil
}

var printer = message.NewPrinter(language.English)

// rawErrors flattens a jsonschema error tree into field errors. Groups
// ($ref, allOf, then/else, the root) are transparent; anyOf and oneOf,
// whose alternatives are each one way to succeed, become a single error
// that lists them.
func rawErrors(e *jsonschema.ValidationError, doc any, out *[]FieldError) {
	at := instancePath(doc, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *schemakind.Group, *schemakind.Schema, *schemakind.Reference, *schemakind.AllOf:
		for _, cause := range e.Causes {
			rawErrors(cause, doc, out)
		}
		return
	case *schemakind.AnyOf, *schemakind.OneOf:
		rule, text := "anyOf", " must satisfy at least one of: "
		if one, ok := k.(*schemakind.OneOf); ok {
			if len(one.Subschemas) > 0 {
				*out = append(*out, FieldError{Path: at, Rule: "oneOf",
					Message: fmt.Sprintf("%s must satisfy exactly one alternative, but satisfies alternatives %d and %d",
						subject(at), one.Subschemas[0], one.Subschemas[1])})
				return
			}
			rule, text = "oneOf", " must satisfy exactly one of: "
		}
		alts := make([]string, 0, len(e.Causes))
		for _, cause := range e.Causes {
			var sub []FieldError
			rawErrors(cause, doc, &sub)
			msgs := make([]string, len(sub))
			for i, fe := range sub {
				msgs[i] = fe.Message
			}
			alts = append(alts, "("+strings.Join(msgs, " and ")+")")
		}
		*out = append(*out, FieldError{Path: at, Rule: rule, Message: subject(at) + text + strings.Join(alts, " or ")})
		return
	case *schemakind.Required:
		for _, name := range k.Missing {
			p := joinPath(at, name)
			*out = append(*out, fieldError(p, "required", "", kindAny))
		}
		return
	case *schemakind.AdditionalProperties:
		for _, name := range k.Properties {
			p := joinPath(at, name)
			*out = append(*out, FieldError{Path: p, Rule: "additionalProperties", Message: subject(p) + " is not allowed"})
		}
		return
	case *schemakind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = typeArticle(w)
		}
		*out = append(*out, FieldError{Path: at, Rule: "type", Param: strings.Join(k.Want, " "),
			Message: subject(at) + " must be " + strings.Join(want, " or ") + ", got " + k.Got})
		return
	case *schemakind.Enum:
		vals := make([]string, len(k.Want))
		for i, v := range k.Want {
			vals[i] = displayJSON(v)
		}
		*out = append(*out, FieldError{Path: at, Rule: "enum", Param: strings.Join(vals, " "),
			Message: subject(at) + " must be one of: " + strings.Join(vals, ", ")})
		return
	case *schemakind.Const:
		*out = append(*out, FieldError{Path: at, Rule: "const", Message: subject(at) + " must be " + displayJSON(k.Want)})
		return
	case *schemakind.MinLength:
		*out = append(*out, fieldError(at, "minLength", strconv.Itoa(k.Want), kindString))
	case *schemakind.MaxLength:
		*out = append(*out, fieldError(at, "maxLength", strconv.Itoa(k.Want), kindString))
	case *schemakind.MinItems:
		*out = append(*out, fieldError(at, "minItems", strconv.Itoa(k.Want), kindArray))
	case *schemakind.MaxItems:
		*out = append(*out, fieldError(at, "maxItems", strconv.Itoa(k.Want), kindArray))
	case *schemakind.MinProperties:
		*out = append(*out, fieldError(at, "minProperties", strconv.Itoa(k.Want), kindObject))
	case *schemakind.MaxProperties:
		*out = append(*out, fieldError(at, "maxProperties", strconv.Itoa(k.Want), kindObject))
	case *schemakind.Minimum:
		*out = append(*out, fieldError(at, "minimum", ratString(k.Want), kindNumber))
	case *schemakind.Maximum:
		*out = append(*out, fieldError(at, "maximum", ratString(k.Want), kindNumber))
	case *schemakind.ExclusiveMinimum:
		*out = append(*out, fieldError(at, "exclusiveMinimum", ratString(k.Want), kindNumber))
	case *schemakind.ExclusiveMaximum:
		*out = append(*out, fieldError(at, "exclusiveMaximum", ratString(k.Want), kindNumber))
	case *schemakind.Pattern:
		*out = append(*out, FieldError{Path: at, Rule: "pattern", Param: k.Want,
			Message: subject(at) + " must match the pattern " + strconv.Quote(k.Want)})
	case *schemakind.Format:
		*out = append(*out, FieldError{Path: at, Rule: "format", Param: k.Want,
			Message: subject(at) + " must be a valid " + k.Want})
	case *schemakind.MultipleOf:
		*out = append(*out, FieldError{Path: at, Rule: "multipleOf", Param: ratString(k.Want),
			Message: subject(at) + " must be a multiple of " + ratString(k.Want)})
	case *schemakind.UniqueItems:
		*out = append(*out, FieldError{Path: at, Rule: "uniqueItems",
			Message: fmt.Sprintf("%s must not contain duplicates, but items %d and %d are equal", subject(at), k.Duplicates[0], k.Duplicates[1])})
	case *schemakind.FalseSchema:
		*out = append(*out, FieldError{Path: at, Rule: "false", Message: subject(at) + " is not allowed"})
	default:
		rule := ""
		if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
			rule = kp[len(kp)-1]
		}
		*out = append(*out, FieldError{Path: at, Rule: rule, Message: subject(at) + ": " + e.ErrorKind.LocalizedString(printer)})
	}
	for _, cause := range e.Causes {
		rawErrors(cause, doc, out)
	}
}

// instancePath turns a JSON pointer, as tokens, into the package's path
// syntax; the document tells array indexes from object keys.
func instancePath(doc any, tokens []string) string {
	var b strings.Builder
	cur := doc
	for _, tok := range tokens {
		switch x := cur.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(x) {
				cur = x[i]
			} else {
				cur = nil
			}
			continue
		case map[string]any:
			cur = x[tok]
		case Values:
			cur = x[tok]
		default:
			cur = nil
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// typeArticle words a JSON Schema type name as in "must be an integer".
func typeArticle(t string) string {
	switch t {
	case "integer", "array", "object":
		return "an " + t
	}
	return "a " + t
}

func joinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// displayJSON shows a schema value as JSON, which is how the model wrote
// the arguments.
func displayJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

func ratString(r *big.Rat) string {
	if r == nil {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
