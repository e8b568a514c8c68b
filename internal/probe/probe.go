// Package probe is the router's side of package observe: it carries the
// router's Probe in a request's context, to the code that starts child
// Ops (work, server-to-client requests), and sorts replies into
// outcomes.
package probe

import (
	"context"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/observe"
)

type key struct{}

// Start starts op with p, and puts p in the Op's context for Child. With
// no probe it returns ctx and a nil end.
func Start(p observe.Probe, ctx context.Context, op observe.Op) (context.Context, func(observe.End)) {
	if p == nil {
		return ctx, nil
	}
	return p(context.WithValue(ctx, key{}, p), op)
}

// Child starts an Op within the Op whose context is ctx, with the probe
// that started that one. Without one it returns ctx and an end that does
// nothing, so callers can always call end.
func Child(ctx context.Context, op observe.Op) (context.Context, func(observe.End)) {
	p, _ := ctx.Value(key{}).(observe.Probe)
	if ctx, end := Start(p, ctx, op); end != nil {
		return ctx, end
	}
	return ctx, func(observe.End) {}
}

// Outcome sorts a response: its JSON-RPC error code, or its result.
func Outcome(result any, code int) observe.Outcome {
	switch {
	case code == jsonrpc.CodeRequestCancelled:
		return observe.Cancelled
	case code != 0:
		return observe.Failed
	}
	switch r := result.(type) {
	case *mcp.CallToolResult:
		if r.IsError {
			return observe.ToolError
		}
	case *mcp.InputRequiredResult:
		return observe.InputRequired
	}
	return observe.OK
}

// Err sorts the error a Work or Outbound Op ended with.
func Err(err error) observe.End {
	if err != nil {
		return observe.End{Outcome: observe.Failed, Err: err}
	}
	return observe.End{}
}
