package openapi

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// A converter turns OpenAPI schemas into JSON Schema 2020-12. Every
// referenced schema becomes one entry of $defs, converted once and shared
// by every tool that reaches it: a $ref is never expanded in place, so
// recursive schemas stay finite, and a tool's schema carries only the
// $defs it reaches.
//
// One converter serves one direction: input schemas leave readOnly
// properties out (the server sets them), output schemas writeOnly ones.
type converter struct {
	v31    bool
	output bool
	defs   map[string]*def // by $ref
	names  map[string]bool // $defs keys taken
}

type def struct {
	name string
	raw  json.RawMessage
	deps []string // the $refs its schema names
}

func newConverter(v31, output bool) *converter {
	return &converter{v31: v31, output: output, defs: map[string]*def{}, names: map[string]bool{}}
}

// maxDepth bounds the nesting of inline schemas (references do not
// nest): a document deeper than this is cut off with an empty schema.
const maxDepth = 64

// schema converts s, collecting into deps the $refs it names.
func (c *converter) schema(s *openapi3.SchemaRef, deps map[string]bool) map[string]any {
	return c.ref(s, deps, 0)
}

func (c *converter) ref(s *openapi3.SchemaRef, deps map[string]bool, depth int) map[string]any {
	if s == nil || s.Value == nil {
		return map[string]any{}
	}
	if s.Ref != "" {
		d := c.define(s)
		deps[s.Ref] = true
		return map[string]any{"$ref": "#/$defs/" + pointerEscape(d.name)}
	}
	if depth > maxDepth {
		return map[string]any{}
	}
	return c.value(s.Value, deps, depth+1)
}

// define converts a referenced schema once.
func (c *converter) define(s *openapi3.SchemaRef) *def {
	if d := c.defs[s.Ref]; d != nil {
		return d
	}
	d := &def{name: c.defName(s.Ref)}
	c.defs[s.Ref] = d // before converting: a cycle finds it here
	deps := map[string]bool{}
	m := c.value(s.Value, deps, 0)
	d.raw, _ = json.Marshal(m)
	d.deps = sortedKeys(deps)
	return d
}

// defName names a $ref's entry in $defs: the component's name, made
// unique.
func (c *converter) defName(ref string) string {
	name := sanitize(ref[strings.LastIndexByte(ref, '/')+1:])
	if name == "" {
		name = "schema"
	}
	base := name
	for i := 2; c.names[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	c.names[name] = true
	return name
}

// value converts an inline schema.
func (c *converter) value(s *openapi3.Schema, deps map[string]bool, depth int) map[string]any {
	m := map[string]any{}
	sub := func(r *openapi3.SchemaRef) map[string]any { return c.ref(r, deps, depth) }
	list := func(rs openapi3.SchemaRefs) []any {
		out := make([]any, len(rs))
		for i, r := range rs {
			out[i] = sub(r)
		}
		return out
	}
	var types []string
	if s.Type != nil {
		types = append(types, s.Type.Slice()...)
	}
	if s.Title != "" {
		m["title"] = s.Title
	}
	if s.Description != "" {
		m["description"] = s.Description
	}
	if s.Format != "" {
		m["format"] = s.Format
	}
	if len(s.Enum) > 0 {
		m["enum"] = s.Enum
	}
	if s.Const != nil {
		m["const"] = s.Const
	}
	if s.Default != nil {
		m["default"] = s.Default
	}
	if s.Deprecated {
		m["deprecated"] = true
	}
	if s.ReadOnly {
		m["readOnly"] = true
	}
	if s.WriteOnly {
		m["writeOnly"] = true
	}
	if len(s.OneOf) > 0 {
		m["oneOf"] = list(s.OneOf)
	}
	if len(s.AnyOf) > 0 {
		m["anyOf"] = list(s.AnyOf)
	}
	if len(s.AllOf) > 0 {
		m["allOf"] = list(s.AllOf)
	}
	if s.Not != nil {
		m["not"] = sub(s.Not)
	}
	if d := s.Discriminator; d != nil && d.PropertyName != "" {
		// Not a 2020-12 keyword, kept as an annotation beside the oneOf
		// that validates, its mapping pointing into $defs.
		disc := map[string]any{"propertyName": d.PropertyName}
		if len(d.Mapping) > 0 {
			mapping := map[string]any{}
			for k, v := range d.Mapping {
				// The oneOf or anyOf above defined the schemas named.
				if def := c.defs[v.Ref]; def != nil {
					mapping[k] = "#/$defs/" + pointerEscape(def.name)
				}
			}
			disc["mapping"] = mapping
		}
		m["discriminator"] = disc
	}
	// Numbers.
	if s.Min != nil {
		m["minimum"] = *s.Min
	}
	if s.Max != nil {
		m["maximum"] = *s.Max
	}
	bound := func(b openapi3.ExclusiveBound, key, plain string) {
		switch {
		case b.Value != nil:
			m[key] = *b.Value
		case b.Bool != nil && *b.Bool && m[plain] != nil:
			m[key] = m[plain] // OpenAPI 3.0's boolean form
			delete(m, plain)
		}
	}
	bound(s.ExclusiveMin, "exclusiveMinimum", "minimum")
	bound(s.ExclusiveMax, "exclusiveMaximum", "maximum")
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		m["multipleOf"] = *s.MultipleOf
	}
	// Strings.
	if s.MinLength > 0 {
		m["minLength"] = s.MinLength
	}
	if s.MaxLength != nil {
		m["maxLength"] = *s.MaxLength
	}
	if s.Pattern != "" {
		// ECMA-262 patterns Go's regexp cannot compile (lookarounds,
		// backreferences) are left out rather than failing the tool.
		if _, err := regexp.Compile(s.Pattern); err == nil {
			m["pattern"] = s.Pattern
		}
	}
	// Arrays.
	if s.Items != nil {
		m["items"] = sub(s.Items)
	}
	if len(s.PrefixItems) > 0 {
		m["prefixItems"] = list(s.PrefixItems)
	}
	if s.MinItems > 0 {
		m["minItems"] = s.MinItems
	}
	if s.MaxItems != nil {
		m["maxItems"] = *s.MaxItems
	}
	if s.UniqueItems {
		m["uniqueItems"] = true
	}
	if s.Contains != nil {
		m["contains"] = sub(s.Contains)
	}
	// Objects.
	if len(s.Properties) > 0 {
		props := make(map[string]any, len(s.Properties))
		for name, p := range s.Properties {
			if c.skip(p) {
				continue
			}
			props[name] = sub(p)
		}
		m["properties"] = props
		var req []string
		for _, r := range s.Required {
			if _, ok := props[r]; ok {
				req = append(req, r)
			}
		}
		if len(req) > 0 {
			m["required"] = req
		}
	} else if len(s.Required) > 0 {
		m["required"] = s.Required
	}
	if ap := s.AdditionalProperties; ap.Has != nil {
		m["additionalProperties"] = *ap.Has
	} else if ap.Schema != nil {
		m["additionalProperties"] = sub(ap.Schema)
	}
	if len(s.PatternProperties) > 0 {
		pp := map[string]any{}
		for k, p := range s.PatternProperties {
			if _, err := regexp.Compile(k); err == nil {
				pp[k] = sub(p)
			}
		}
		m["patternProperties"] = pp
	}
	if s.MinProps > 0 {
		m["minProperties"] = s.MinProps
	}
	if s.MaxProps != nil {
		m["maxProperties"] = *s.MaxProps
	}
	// nullable is OpenAPI 3.0's; 2020-12 says it with a "null" type.
	nullable := s.Nullable && !c.v31
	switch {
	case len(types) == 1 && !nullable:
		m["type"] = types[0]
	case len(types) > 0:
		if nullable && !contains(types, "null") {
			types = append(types, "null")
		}
		m["type"] = types
	case nullable:
		return map[string]any{"anyOf": []any{m, map[string]any{"type": "null"}}}
	}
	if nullable {
		if e, ok := m["enum"].([]any); ok && !contains(e, nil) {
			m["enum"] = append(append([]any(nil), e...), nil)
		}
	}
	return m
}

// skip reports whether a property does not belong in this direction.
func (c *converter) skip(p *openapi3.SchemaRef) bool {
	if p == nil || p.Value == nil {
		return false
	}
	if c.output {
		return p.Value.WriteOnly
	}
	return p.Value.ReadOnly
}

// document writes a tool's schema: top with the $defs its refs reach.
func (c *converter) document(top map[string]any, deps map[string]bool) (json.RawMessage, error) {
	if len(deps) > 0 {
		seen := map[string]bool{}
		var walk func(ref string)
		walk = func(ref string) {
			if seen[ref] {
				return
			}
			seen[ref] = true
			for _, d := range c.defs[ref].deps {
				walk(d)
			}
		}
		for ref := range deps {
			walk(ref)
		}
		defs := make(map[string]json.RawMessage, len(seen))
		for ref := range seen {
			d := c.defs[ref]
			defs[d.name] = d.raw
		}
		top["$defs"] = defs
	}
	return json.Marshal(top)
}

func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
