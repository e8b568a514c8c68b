package reqctx

import (
	"context"
	"time"
)

// A Sink receives the MCP messages of one HTTP request from the
// router, which notes each one, for a request log in the middleware chain
// (middleware.RequestLog), which writes them. Neither side imports the
// other: the log puts a Sink in the request's context, and the router
// notes into whatever sink it finds there, or none.

// Message is one MCP message as a request log reports it.
type Message struct {
	Method    string        // JSON-RPC method ("tools/call"); "response" for a client's answer
	Name      string        // tool or prompt name, or resource URI
	ID        string        // JSON-RPC id, raw
	Session   string        // Mcp-Session-Id
	Principal string        // authenticated caller, when known
	Code      int           // JSON-RPC error code; 0 on success
	Duration  time.Duration // time to the final answer
}

// Sink receives the messages of one HTTP request. Note may be called from
// several goroutines, and after the request ended (work that outlived its
// connection).
type Sink interface {
	Note(Message)
}

type sinkKey struct{}

// WithSink returns ctx carrying s.
func WithSink(ctx context.Context, s Sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

// Note hands m to the sink in ctx; without one it does nothing.
func Note(ctx context.Context, m Message) {
	if s, ok := ctx.Value(sinkKey{}).(Sink); ok {
		s.Note(m)
	}
}
