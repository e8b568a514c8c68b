// Package observe is the instrumentation core of Specter, free of
// dependencies: a Probe, given to the router with specter.Instrument, is
// told when each MCP request, each piece of NoReply work and each
// server-to-client request starts and how it ends. Tracing and metrics
// (package specterotel) are built on it; so can an application's own
// logging or metrics be.
package observe

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Probe is called when the router starts an Op. The context it returns
// becomes the Op's context (the handler's and the work's), so a probe can
// put a span there for user code and child Ops to find; end is called
// exactly once, when the Op has ended. A probe must be safe for
// concurrent use and must not block: it runs on the request path.
type Probe func(ctx context.Context, op Op) (_ context.Context, end func(End))

// Kind is what an Op is.
type Kind uint8

const (
	// Request is one JSON-RPC request from the client, from dispatch to
	// its response (which, for NoReply, is sent when the work ends).
	Request Kind = iota
	// Work is the work of a NoReply, or of a task, after the handler
	// returned; it runs within its Request.
	Work
	// Outbound is a request the server sends to the client in a session
	// (elicitation/create, sampling/createMessage, roots/list), from
	// sending it until the answer arrives or the server stops waiting.
	Outbound
)

// String names the kind: "request", "work" or "outbound".
func (k Kind) String() string {
	switch k {
	case Work:
		return "work"
	case Outbound:
		return "outbound"
	}
	return "request"
}

// Op describes the work that starts.
type Op struct {
	Kind Kind
	// Method is the JSON-RPC method: the client's ("tools/call"), or, for
	// an Outbound Op, the server's ("elicitation/create").
	Method string
	// Name is the tool or prompt name or the resource URI as the client
	// sent it: it may name nothing declared, so it is not fit for a metric
	// label (End.Declaration is).
	Name string
	// ID is the JSON-RPC id as sent (a JSON string or number).
	ID        []byte
	Version   string // protocol version
	Stateless bool   // the 2026-07-28 wire, rather than a session
	SessionID string
	// Header holds the HTTP request's headers (traceparent, tracestate);
	// nil for Work and Outbound.
	Header http.Header
	// Meta is the request's _meta object, raw, or nil.
	Meta json.RawMessage
}

// Outcome is how an Op ended.
type Outcome uint8

const (
	// OK: a result was sent (or, for Outbound, received).
	OK Outcome = iota
	// ToolError: a tool answered with a result flagged isError, which the
	// model reads.
	ToolError
	// InputRequired: a 2026-07-28 request answered input_required; the
	// client will send the request again with the answers.
	InputRequired
	// Failed: a JSON-RPC error was sent (or received), or the Op failed.
	Failed
	// Cancelled: the client cancelled the request, or the request ended
	// before the Op did.
	Cancelled
)

// String names the outcome: "ok", "tool_error", "input_required",
// "error" or "cancelled".
func (o Outcome) String() string {
	names := [...]string{"ok", "tool_error", "input_required", "error", "cancelled"}
	if int(o) < len(names) {
		return names[o]
	}
	return "unknown"
}

// End is how an Op ended.
type End struct {
	Outcome Outcome
	// Code is the JSON-RPC error code of the response; 0 when there was
	// none.
	Code int
	// Declaration is the declared name that served a Request: the tool or
	// prompt name, or the resource URI or template as declared. It is ""
	// when no declaration did (a list, or a name nothing declares), so it
	// is bounded by the declarations and fit for a metric label.
	Declaration string
	// Err is the error of a Failed Work or Outbound Op, when there is one.
	Err error
}

// Callback is a Probe for the simplest use, such as a log line or a
// counter: f is called when each Op ends, with how long it took.
func Callback(f func(op Op, end End, took time.Duration)) Probe {
	return func(ctx context.Context, op Op) (context.Context, func(End)) {
		start := time.Now()
		return ctx, func(e End) { f(op, e, time.Since(start)) }
	}
}
