package specter

import (
	"encoding/json"
	"reflect"
)

// ElicitAction is how the user answered an elicitation.
type ElicitAction string

// The answers to an elicitation.
const (
	ElicitAccept  ElicitAction = "accept"  // the user submitted the form
	ElicitDecline ElicitAction = "decline" // the user said no
	ElicitCancel  ElicitAction = "cancel"  // the user dismissed the question
)

// Asker asks the client for input: the *Context of a handler, or the
// *Stream of the work a NoReply runs.
type Asker interface{ asker() *Stream }

// Elicit asks the user, through the client, to fill in a T: the struct's
// json, validate, description, default and title tags make the requested
// schema, exactly as for a typed tool, and the answer is validated with
// the same rules and decoded into a T. When the user declines or cancels,
// Elicit returns the zero T and that action with no error. An answer that
// breaks the rules is an error wrapping a *params.ValidationError.
//
//	type Confirm struct {
//		Deploy bool   `json:"deploy" description:"Deploy now?"`
//		Reason string `json:"reason,omitempty" validate:"max=200"`
//	}
//	answer, action, err := specter.Elicit[Confirm](c, "Deploy to production?")
//
// T must be a struct of strings, numbers, integers, booleans, enums and
// multi-select enums (MCP elicitation asks for a flat form). The schema is compiled on the
// first use of T and kept. The answer is the client's word, not proof that
// a person confirmed; see Stream.Elicit.
func Elicit[T any](a Asker, message string, opts ...InputOption) (T, ElicitAction, error) {
	var v T
	schema, err := formFor(reflect.TypeFor[T]())
	if err != nil {
		return v, "", err
	}
	action, err := a.asker().elicitForm(message, schema, opts, func(c json.RawMessage) error { return schema.Bind(c, &v) })
	return v, action, err
}
