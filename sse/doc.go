// Package sse writes Server-Sent Events (the WHATWG event-stream format) to
// an HTTP response, and reads them back on the client side (Reader).
//
// A Writer sets the headers a stream needs, including X-Accel-Buffering: no
// so that reverse proxies do not hold events back, and flushes after every
// event. It knows nothing of MCP; ids, retry hints and keep-alive comments
// are the caller's choice.
package sse
