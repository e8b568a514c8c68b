// Package form compiles the schemas of elicitation forms. MCP elicitation
// asks for a flat form, so a schema holding an object is refused; the
// schema of a Go type is compiled on its first use and kept.
package form

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// Answer is the part of the client's answer to a form the server reads.
type Answer struct {
	Action  string          `json:"action"` // accept, decline or cancel
	Content json.RawMessage `json:"content,omitempty"`
}

// Valid reports whether the answer names one of the actions.
func (a *Answer) Valid() bool {
	return a.Action == "accept" || a.Action == "decline" || a.Action == "cancel"
}

// Mode is the mode a form is asked in on revision version: "form" where
// revisions know modes (2025-11-25 on), else none.
func Mode(version string) string {
	if version >= mcp.Version20251125 {
		return "form"
	}
	return ""
}

// Check refuses schemas MCP elicitation cannot carry: no field may be an
// object. (Arrays are multi-select enums; a raw schema may leave a
// field's type unsaid.)
func Check(s *params.Schema) error {
	if s == nil {
		return fmt.Errorf("specter: Elicit needs a schema; use params.New(fields...) or Elicit[T]")
	}
	for _, f := range s.Fields() {
		if f.Type == "object" {
			return fmt.Errorf("specter: elicitation field %q has type %q; MCP elicitation asks only for strings, numbers, integers, booleans and enums", f.Name, f.Type)
		}
	}
	return nil
}

// compiled is the schema of a type, or why it has none.
type compiled struct {
	schema *params.Schema
	err    error
}

var schemas sync.Map // reflect.Type -> compiled

// For returns the form of t, compiled and checked once.
func For(t reflect.Type) (*params.Schema, error) {
	if c, ok := schemas.Load(t); ok {
		return c.(compiled).schema, c.(compiled).err
	}
	s, err := params.ForType(t)
	if err == nil {
		err = Check(s)
	}
	if err != nil {
		err = fmt.Errorf("specter: Elicit[%s]: %w", t, err)
	}
	schemas.Store(t, compiled{schema: s, err: err})
	return s, err
}
