package reqctx

import "context"

// The in-process mark is on the requests a Specter connection builds in the
// same process (package direct, and stdio on top of it) rather than
// reads off a network. Such a request carries its 2026-07-28 metadata in
// the body only, as the stdio transport does: there is no HTTP
// intermediary to route on headers, so the transport does not ask for the
// headers that mirror the body. Only code of this module can set the mark,
// and no HTTP header can forge it.

type inprocKey struct{}

// WithInProcess returns ctx marked as the context of an in-process request.
func WithInProcess(ctx context.Context) context.Context {
	return context.WithValue(ctx, inprocKey{}, true)
}

// InProcess reports whether ctx is the context of an in-process request.
func InProcess(ctx context.Context) bool {
	v, _ := ctx.Value(inprocKey{}).(bool)
	return v
}
