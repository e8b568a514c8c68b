// Package probe is the router's side of package observe: it carries the
// router's Probe and a request's Op in the request's context, to the code
// that starts child Ops (work, server-to-client requests), and sorts
// replies into outcomes.
package probe

import (
	"context"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/observe"
)

type key struct{}

// started is what a context carries: the probe and the Op it started.
type started struct {
	p  observe.Probe
	op observe.Op
}

// Start starts op with p, and puts both in the Op's context for Work and
// Outbound. With no probe it returns ctx and a nil end.
func Start(p observe.Probe, ctx context.Context, op observe.Op) (context.Context, func(observe.End)) {
	if p == nil {
		return ctx, nil
	}
	return p(context.WithValue(ctx, key{}, &started{p, op}), op)
}

// Work starts the Work Op of the request whose context is ctx.
func Work(ctx context.Context) (context.Context, func(observe.End)) {
	return child(ctx, func(op observe.Op) observe.Op {
		return observe.Op{Kind: observe.Work, Method: op.Method, Name: op.Name, ID: op.ID, Version: op.Version,
			Stateless: op.Stateless, SessionID: op.SessionID}
	})
}

// Outbound starts the Op of a request with method that the server sends
// the client, within the Op whose context is ctx.
func Outbound(ctx context.Context, method string) (context.Context, func(observe.End)) {
	return child(ctx, func(op observe.Op) observe.Op {
		return observe.Op{Kind: observe.Outbound, Method: method, Version: op.Version, Stateless: op.Stateless, SessionID: op.SessionID}
	})
}

// child starts the Op made of its parent's, with the parent's probe.
// Without one it returns ctx and an end that does nothing, so callers can
// always call end.
func child(ctx context.Context, of func(parent observe.Op) observe.Op) (context.Context, func(observe.End)) {
	s, _ := ctx.Value(key{}).(*started)
	if s == nil {
		return ctx, func(observe.End) {}
	}
	return Start(s.p, ctx, of(s.op))
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
