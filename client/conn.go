package client

import (
	"context"
	"net/http"

	"github.com/specter-mcp/specter/jsonrpc"
)

// A Transport connects a client to one server. HTTPTransport (Streamable
// HTTP, also in process with InMemory) and CommandTransport (stdio) are
// the built-in ones; any other type with a Connect method is one too: a
// transport of your own (a socket, a WebSocket, a pipe to an embedded
// server) returns a Conn, which StreamConn makes of any byte stream.
type Transport interface {
	Connect(ctx context.Context) (Conn, error)
}

// A Conn carries JSON-RPC messages to and from one server, in order. The
// client sends with Write, from any goroutine, and reads from one
// goroutine; it matches responses to requests itself.
type Conn interface {
	// Read returns the server's next message. Once the connection has
	// ended it returns an error (io.EOF for a clean end), and so it does,
	// promptly, after Close.
	Read(ctx context.Context) (*jsonrpc.Message, error)
	// Write sends a message to the server.
	Write(ctx context.Context, m *jsonrpc.Message) error
	// Close ends the connection.
	Close() error
}

// opener is a built-in transport, which the client drives through conn
// rather than Conn: Streamable HTTP needs headers and streams per message.
type opener interface {
	open(ctx context.Context, in inbound) (conn, error)
}

// inbound receives what the server sends outside of a response: its
// requests (session era) and notifications. ctx is the context of the
// call on whose stream the message came, or nil for none. It must not
// block.
type inbound func(ctx context.Context, msg *jsonrpc.Message)

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

// openConn opens a transport: a built-in one as it knows best, any other
// through its Conn.
func openConn(ctx context.Context, t Transport, in inbound) (conn, error) {
	if o, ok := t.(opener); ok {
		return o.open(ctx, in)
	}
	c, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return newMessageConn(c, in), nil
}
