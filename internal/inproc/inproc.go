// Package inproc marks the requests a Specter connection builds in the
// same process (package direct, and stdio on top of it) rather than
// reads off a network. Such a request carries its 2026-07-28 metadata in
// the body only, as the stdio transport does: there is no HTTP
// intermediary to route on headers, so the transport does not ask for the
// headers that mirror the body. Only code of this module can set the mark,
// and no HTTP header can forge it.
package inproc

import "context"

type key struct{}

// With returns ctx marked as the context of an in-process request.
func With(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// Is reports whether ctx is the context of an in-process request.
func Is(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}
