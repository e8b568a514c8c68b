package params

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// keywords is the part of JSON Schema that generated schemas use. The order
// of the struct fields is the order of the keys in the output, which keeps
// generated schemas byte-for-byte deterministic.
type keywords struct {
	Type                 string          `json:"type,omitempty"`
	Title                string          `json:"title,omitempty"`
	Description          string          `json:"description,omitempty"`
	Enum                 []any           `json:"enum,omitempty"`
	Format               string          `json:"format,omitempty"`
	ContentEncoding      string          `json:"contentEncoding,omitempty"`
	MinLength            *int64          `json:"minLength,omitempty"`
	MaxLength            *int64          `json:"maxLength,omitempty"`
	Pattern              string          `json:"pattern,omitempty"`
	Minimum              json.Number     `json:"minimum,omitempty"`
	ExclusiveMinimum     json.Number     `json:"exclusiveMinimum,omitempty"`
	Maximum              json.Number     `json:"maximum,omitempty"`
	ExclusiveMaximum     json.Number     `json:"exclusiveMaximum,omitempty"`
	MinItems             *int64          `json:"minItems,omitempty"`
	MaxItems             *int64          `json:"maxItems,omitempty"`
	MinProperties        *int64          `json:"minProperties,omitempty"`
	MaxProperties        *int64          `json:"maxProperties,omitempty"`
	Items                *keywords       `json:"items,omitempty"`
	Properties           properties      `json:"properties,omitempty"`
	Required             []string        `json:"required,omitempty"`
	AdditionalProperties *keywords       `json:"additionalProperties,omitempty"`
	Default              json.RawMessage `json:"default,omitempty"`
	Header               string          `json:"x-mcp-header,omitempty"`
}

// property is one entry of "properties".
type property struct {
	name   string
	schema *keywords
}

// properties marshals as a JSON object whose keys keep declaration order,
// which a Go map cannot do.
type properties []property

// MarshalJSON implements [json.Marshaler].
func (ps properties) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := json.Marshal(p.name)
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		val, err := json.Marshal(p.schema)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", p.name, err)
		}
		buf.Write(val)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// atLeast raises the count bound *p to n; several rules may set the same
// keyword, and the tightest one is what validation enforces.
func atLeast(p **int64, n int64) {
	if *p == nil || **p < n {
		*p = &n
	}
}

// atMost lowers the count bound *p to n.
func atMost(p **int64, n int64) {
	if *p == nil || **p > n {
		*p = &n
	}
}

// lowerBound raises the numeric bound *p to n.
func lowerBound(p *json.Number, n json.Number) {
	if *p == "" || numberLess(*p, n) {
		*p = n
	}
}

// upperBound lowers the numeric bound *p to n.
func upperBound(p *json.Number, n json.Number) {
	if *p == "" || numberLess(n, *p) {
		*p = n
	}
}

func numberLess(a, b json.Number) bool {
	x, _ := strconv.ParseFloat(string(a), 64)
	y, _ := strconv.ParseFloat(string(b), 64)
	return x < y
}
