package params

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/specter-mcp/specter/internal/jsonscan"
)

// New compiles declared parameters into a Schema. The error names every
// offending field: a missing or repeated name, rules validator cannot
// parse or that do not fit the type, a default of the wrong type, a Header
// on a nested or non-scalar field, an Enum without values, ...
func New(fields ...Field) (*Schema, error) {
	root := &node{kind: kindObject}
	kw := &keywords{Type: "object"}
	var (
		errs    []error
		infos   = make([]FieldInfo, 0, len(fields))
		seen    = make(map[string]bool, len(fields))
		headers = make(map[string]string)
	)
	for i, f := range fields {
		if f.name == "" {
			errs = append(errs, fmt.Errorf("params: parameter %d has no name", i))
			continue
		}
		if seen[f.name] {
			errs = append(errs, fmt.Errorf("params: field %q is declared twice", f.name))
			continue
		}
		seen[f.name] = true
		n, fkw, err := compileField(f, f.name, true)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if f.header != "" {
			key := strings.ToLower(f.header)
			if other, dup := headers[key]; dup {
				errs = append(errs, fmt.Errorf("params: field %q: header %q is already used by field %q", f.name, f.header, other))
				continue
			}
			headers[key] = f.name
		}
		root.fields = append(root.fields, n)
		kw.Properties = append(kw.Properties, property{name: f.name, schema: fkw})
		if n.required {
			kw.Required = append(kw.Required, f.name)
		}
		infos = append(infos, fieldInfo(n, fkw))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	root.indexNames()
	data, err := json.Marshal(kw)
	if err != nil {
		return nil, fmt.Errorf("params: encoding schema: %w", err)
	}
	return &Schema{json: data, fields: infos, root: root}, nil
}

// Empty returns the schema of a tool without parameters: {"type":"object"}.
// Its Validate accepts any object and returns empty Values.
func Empty() *Schema {
	return &Schema{json: json.RawMessage(`{"type":"object"}`), root: &node{kind: kindObject}}
}

// compileField compiles a declared field found at path at (for errors).
func compileField(f Field, at string, top bool) (*node, *keywords, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("params: field %q: %s", at, fmt.Sprintf(format, args...))
	}
	if f.kind == kindAny {
		return nil, nil, fail("not built with String, Integer, Number, Boolean, Enum, Array or Object")
	}
	n := &node{name: f.name, kind: f.kind, required: f.required}
	kw := &keywords{Type: f.kind.String(), Title: f.title, Description: f.description}

	fr, err := compileFieldRules(f.rules, f.kind)
	if err != nil {
		return nil, nil, fail("Validate(%q): %v", f.rules, err)
	}
	n.required = n.required || fr.required
	n.check = fr.check
	n.lengths = lengthRules(fr.check)
	oneof, err := applyRules(kw, f.kind, fr.own) // validator enforces it
	if err != nil {
		return nil, nil, fail("Validate(%q): %v", f.rules, err)
	}
	if err := trialRules(zeroOf(f.kind), fr.check); err != nil {
		return nil, nil, fail("Validate(%q): %v", f.rules, err)
	}
	if f.enum != nil {
		if err := checkEnum(f.enum); err != nil {
			return nil, nil, fail("%v", err)
		}
		if oneof != nil {
			return nil, nil, fail("has both Enum values and a oneof rule")
		}
		n.enum = f.enum
		kw.Enum = make([]any, len(f.enum))
		for i, v := range f.enum {
			kw.Enum[i] = v
		}
	}

	if f.pattern != "" {
		if err := compilePattern(n, kw, f.pattern); err != nil {
			return nil, nil, fail("Pattern: %v", err)
		}
	}

	switch f.kind {
	case kindArray:
		if f.items == nil {
			return nil, nil, fail("array has no items")
		}
		items := *f.items
		if items.required || items.hasDefault || items.header != "" {
			return nil, nil, fail("array items cannot be Required, have a Default or a Header")
		}
		// Rules after dive apply to each item, like the item's own rules.
		if len(fr.elems) > 0 {
			Validate(joinRules(fr.elems))(&items)
		}
		n.items, kw.Items, err = compileField(items, at+"[]", false)
		if err != nil {
			return nil, nil, err
		}
	case kindObject:
		seen := make(map[string]bool, len(f.fields))
		for _, sub := range f.fields {
			subAt := at + "." + sub.name
			switch {
			case sub.name == "":
				return nil, nil, fail("a property has no name")
			case seen[sub.name]:
				return nil, nil, fmt.Errorf("params: field %q is declared twice", subAt)
			}
			seen[sub.name] = true
			sn, skw, err := compileField(sub, subAt, false)
			if err != nil {
				return nil, nil, err
			}
			n.fields = append(n.fields, sn)
			kw.Properties = append(kw.Properties, property{name: sub.name, schema: skw})
			if sn.required {
				kw.Required = append(kw.Required, sub.name)
			}
		}
		n.open = len(f.fields) == 0
		n.indexNames()
	}

	if f.header != "" {
		if err := checkHeader(f.header, n.kind, top); err != nil {
			return nil, nil, fail("%v", err)
		}
		kw.Header = f.header
	}
	// Last: checking the default needs the rest of the node.
	if f.hasDefault {
		if n.required {
			return nil, nil, fail("a required parameter cannot have a Default")
		}
		def, raw, err := compileDefault(n, f.def)
		if err != nil {
			return nil, nil, fail("%v", err)
		}
		n.hasDefault, n.def, kw.Default = true, def, raw
	}
	return n, kw, nil
}

// compileDefault checks a Default value like an argument, strictly, and
// returns its normalized form and its JSON.
func compileDefault(n *node, v any) (any, json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("default %v cannot be encoded as JSON: %w", v, err)
	}
	return checkDefault(n, data, true)
}

// checkDefault validates the JSON text of a default against n.
func checkDefault(n *node, data []byte, strict bool) (any, json.RawMessage, error) {
	dv, err := decodeValue(data)
	if err != nil {
		return nil, nil, fmt.Errorf("default %s is not valid JSON: %w", data, err)
	}
	if dv == nil {
		return nil, nil, errors.New("default is null")
	}
	c := checker{strict: strict, fill: true, normalize: true, path: []segment{{key: "default", index: -1}}}
	def := c.value(n, dv)
	if len(c.errs) > 0 {
		return nil, nil, errors.New(c.errs[0].Message)
	}
	raw, err := json.Marshal(def)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding default: %w", err)
	}
	return def, raw, nil
}

func checkEnum(values []string) error {
	if len(values) == 0 {
		return errors.New("Enum has no values")
	}
	for i, v := range values {
		if slices.Contains(values[:i], v) {
			return fmt.Errorf("Enum value %q is repeated", v)
		}
	}
	return nil
}

// checkHeader enforces where x-mcp-header may appear: a header carries one
// scalar, and only top-level arguments are mirrored.
func checkHeader(name string, k kind, top bool) error {
	switch {
	case !top:
		return errors.New("Header is allowed only on top-level parameters")
	case !k.scalar():
		return fmt.Errorf("Header is allowed only on string, integer, number and boolean parameters, not on %s", k.plural())
	case !isToken(name):
		return fmt.Errorf("header name %q is not a valid HTTP field name", name)
	}
	return nil
}

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// zeroOf is a sample value of kind k, to try rules on.
func zeroOf(k kind) any {
	switch k {
	case kindString:
		return ""
	case kindInteger:
		return int64(0)
	case kindNumber:
		return float64(0)
	case kindBoolean:
		return false
	case kindArray:
		return []any{}
	case kindObject:
		return Values{}
	}
	return nil
}

// fieldInfo summarizes a compiled top-level field. Its Enum lists string
// enums, whether from Enum or from a oneof rule.
func fieldInfo(n *node, kw *keywords) FieldInfo {
	info := FieldInfo{
		Name:        n.name,
		Title:       kw.Title,
		Description: kw.Description,
		Type:        n.kind.String(),
		Required:    n.required,
		Header:      kw.Header,
	}
	if n.kind == kindString {
		for _, v := range kw.Enum {
			if s, ok := v.(string); ok {
				info.Enum = append(info.Enum, s)
			}
		}
	}
	return info
}

// decodeValue decodes one JSON value, keeping numbers as json.Number.
func decodeValue(data []byte) (any, error) {
	if v, ok := jsonscan.Decode(data); ok {
		return v, nil
	}
	// Invalid JSON: encoding/json says what is wrong with it.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// Must returns s, and panics if err is not nil. It is for schemas built
// once, in package variables and at start-up, where an error is a
// programming mistake:
//
//	var confirm = params.Must(params.New(params.Boolean("ok", params.Required())))
func Must(s *Schema, err error) *Schema {
	if err != nil {
		panic(err)
	}
	return s
}

// compilePattern gives string node n the regular expression expr, once.
func compilePattern(n *node, kw *keywords, expr string) error {
	if n.kind != kindString {
		return fmt.Errorf("a pattern applies to strings, not to %s", n.kind.plural())
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("%q is not a valid regular expression: %w", expr, err)
	}
	n.pattern, kw.Pattern = re, expr
	return nil
}
