package specter

// The schemas of elicitation forms. MCP elicitation asks for a flat form,
// so a schema holding an object is refused; the schema of a Go type is
// compiled on its first use and kept.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// formAnswer is the part of the client's answer to a form the server reads.
type formAnswer struct {
	Action  string          `json:"action"` // accept, decline or cancel
	Content json.RawMessage `json:"content,omitempty"`
}

// Valid reports whether the answer names one of the actions.
func (a *formAnswer) Valid() bool {
	return a.Action == "accept" || a.Action == "decline" || a.Action == "cancel"
}

// formMode is the mode a form is asked in on revision version: "form" where
// revisions know modes (2025-11-25 on), else none.
func formMode(version string) string {
	if version >= mcp.Version20251125 {
		return "form"
	}
	return ""
}

// checkForm refuses formSchemas MCP elicitation cannot carry: no field may be an
// object. (Arrays are multi-select enums; a raw schema may leave a
// field's type unsaid.)
func checkForm(s *params.Schema) error {
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

// compiledForm is the schema of a type, or why it has none.
type compiledForm struct {
	schema *params.Schema
	err    error
}

var formSchemas sync.Map // reflect.Type -> compiledForm

// formFor returns the form of t, compiledForm and checked once.
func formFor(t reflect.Type) (*params.Schema, error) {
	if c, ok := formSchemas.Load(t); ok {
		return c.(compiledForm).schema, c.(compiledForm).err
	}
	s, err := params.ForType(t)
	if err == nil {
		err = checkForm(s)
	}
	if err != nil {
		err = fmt.Errorf("specter: Elicit[%s]: %w", t, err)
	}
	formSchemas.Store(t, compiledForm{schema: s, err: err})
	return s, err
}
