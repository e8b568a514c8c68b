package client

import (
	"context"
	"net/http"

	"github.com/specter-mcp/specter/jsonrpc"
)

// A Transport carries a client's messages to one server. HTTPTransport
// (Streamable HTTP, also used in memory by InMemory) and CommandTransport
// (stdio) are the transports.
type Transport interface {
	open(ctx context.Context, in inbound) (conn, error)
}

// inbound receives what the server sends outside of a response: its
// requests (session era) and notifications. It must not block.
type inbound func(msg *jsonrpc.Message)

// conn is an open transport.
type conn interface {
	// call sends a request and returns its response. Messages the server
	// sends before the response go to the inbound function.
	call(ctx context.Context, out *outgoing) (*jsonrpc.Message, error)
	// send sends a notification, or the response to a server request.
	send(ctx context.Context, out *outgoing) error
	// listen receives the server's own messages (the session-era GET
	// stream) until ctx ends, calling open once the stream is set up (or
	// refused); transports that always listen return at once.
	listen(ctx context.Context, open func()) error
	// close ends the session (DELETE) and releases the transport.
	close(ctx context.Context) error
}

// outgoing is one message with the HTTP headers that go with it on
// Streamable HTTP (protocol version, Mcp-Method, Mcp-Name, Mcp-Param-*);
// other transports ignore the headers.
type outgoing struct {
	msg    *jsonrpc.Message
	header http.Header
}
