package specter

import (
	"context"

	"strings"
)

// Completer suggests values for a prompt argument or a resource template
// variable as the user types (completion/complete).
//
// ctx is the request's *Context, as handlers get it: ctx.(*specter.Context)
// reaches the caller (Caller), what connect assigned (Assigned), the HTTP
// request and its values, in both eras, so that suggestions can depend on
// who asks. It ends when the client cancels or goes away.
type Completer interface {
	// Complete returns suggestions for value; args holds the arguments
	// already filled in.
	Complete(ctx context.Context, value string, args map[string]string) ([]string, error)
}

// CompleterFunc adapts a function to Completer; its ctx is the request's
// *Context (see Completer).
type CompleterFunc func(ctx context.Context, value string, args map[string]string) ([]string, error)

// Complete calls f.
func (f CompleterFunc) Complete(ctx context.Context, value string, args map[string]string) ([]string, error) {
	return f(ctx, value, args)
}

// Values completes from a fixed list: the values that start with what was
// typed, ignoring case, in the given order.
func Values(values ...string) Completer { return fixedValues(values) }

type fixedValues []string

func (v fixedValues) Complete(_ context.Context, value string, _ map[string]string) ([]string, error) {
	out := make([]string, 0, len(v))
	for _, s := range v {
		if len(s) >= len(value) && strings.EqualFold(s[:len(value)], value) {
			out = append(out, s)
		}
	}
	return out, nil
}
