// Package direct connects an application to an MCP server in the same
// process, with no network in between: the application hands the
// connection one JSON-RPC message (or a batch) at a time, and gets back,
// through a function of its own, the answers and every message the
// server emits. It is the transport-neutral entry point of Specter, for
// apps that carry MCP over a channel of their own (a queue, a WebSocket,
// a test) — and the base of package stdio.
//
//	conn := direct.Open(r, func(msg []byte) { ws.Write(msg) }, direct.Config{})
//	defer conn.Close(ctx)
//	err := conn.Send(msg) // each message read off the channel
//
// The name says what the connection is: a direct line to the router,
// where an HTTP client would go through a listener. It serves any
// http.Handler — a specter.Router, or a whole Echo app with the router
// mounted behind its middleware — by building each message into an
// in-memory HTTP request and reading the handler's answer (a JSON body or
// an event stream) back into messages. So every semantic of the
// Streamable HTTP transport holds unchanged, in both eras:
//
//   - a session-era client sends initialize; the connection keeps the
//     session's id and, once the client sends notifications/initialized,
//     holds the session's event stream open, so that list-changed,
//     resource-updated and log notifications arrive between requests.
//     Requests the server sends the client (elicitation, sampling, roots)
//     come out of out, and the client's responses go back in with Send;
//   - a 2026-07-28 client sends its _meta on every request, with no HTTP
//     headers to mirror it (the body alone speaks for a request here, as
//     on stdio); notifications/cancelled ends the request it names.
//
// Each request runs on a goroutine of its own, so a long tool call does
// not hold back the next message; out is never called concurrently.
//
// # Connect without an HTTP caller
//
// Connect runs for every message, as it does over HTTP, and sees what
// Config gives it: Header is set on every request (an Authorization
// header, for an app behind auth.JWT), and Context is the parent of every
// request's context (principal.NewContext names a caller for a router
// with no authentication middleware). The caller of a local process is
// whoever started it, so a token taken from the environment is the usual
// pattern:
//
//	cfg := direct.Config{Header: http.Header{}}
//	cfg.Header.Set("Authorization", "Bearer "+os.Getenv("SPECTER_TOKEN"))
package direct
