// Package elicitform compiles and checks the schemas of elicitation
// forms: MCP elicitation asks the user for a flat form, so a schema with
// an object field cannot be sent. The schema of each Go type is compiled
// on its first use and kept.
package elicitform

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/specter-mcp/specter/params"
)

// schemas holds the compiled schema (or the error) of each type.
var schemas sync.Map // reflect.Type -> entry

type entry struct {
	schema *params.Schema
	err    error
}

// For returns the form schema of the struct type t, compiled once.
func For(t reflect.Type) (*params.Schema, error) {
	if e, ok := schemas.Load(t); ok {
		return e.(entry).schema, e.(entry).err
	}
	s, err := params.ForType(t)
	if err == nil {
		err = Check(s)
	}
	if err != nil {
		err = fmt.Errorf("specter: Elicit[%s]: %w", t, err)
	}
	schemas.Store(t, entry{schema: s, err: err})
	return s, err
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

// AnswerError reports an answer that breaks its form's schema.
func AnswerError(err error) error {
	return fmt.Errorf("the answer to the question does not match what was asked: %w", err)
}
