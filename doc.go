// Package specter builds MCP (Model Context Protocol) servers inside Echo
// and net/http applications.
//
// A Router holds the tools, prompts and resources an application offers.
// It is mounted under a path of an Echo group (Router.Mount) or served as
// an http.Handler (Router.Handler). A connect function runs on every MCP
// request: it authenticates the caller and decides which tools, prompts and
// resources that caller may see and use. Handlers receive validated params,
// the request and a per-request Context, and answer with Reply now, or
// with NoReply(work): the work streams progress and logs, and replies later.
//
//	r := specter.NewRouter("notes", "1.0.0")
//	r.Tool("echo", func(p specter.Params, req *specter.Request, c *specter.Context) specter.Result {
//		return specter.Reply(p.String("text"))
//	}, specter.Description("Echo the text back"), params.String("text", params.Required()))
//	r.Mount(e.Group("/mcp"))
//
// # Two protocol eras on one endpoint
//
// The router serves the session-based Streamable HTTP transport of MCP
// revisions 2025-03-26 through 2025-11-25 (initialize, Mcp-Session-Id,
// resumable SSE streams, server-to-client requests) and the stateless
// 2026-07-28 revision (per-request _meta, server/discover, multi
// round-trip requests, subscriptions/listen), deciding per request. The
// same handler code serves both: Context.Elicit, Sample and ListRoots
// block for the client's answer in a session, and on the 2026-07-28 wire
// answer input_required and run the handler again with the answer
// (ErrInputRequired).
//
// # Interactive UIs (MCP Apps)
//
// Router.UI declares a ui:// HTML page that hosts render in a sandboxed
// iframe for the tools linked to it with UIResource; Visibility makes a
// tool the page's alone. Context.SupportsUI tells connect and handlers
// whether the caller's client renders such pages, so that others get
// text. Package appview is the page's side: a small script that talks to
// the host.
//
// # Many nodes
//
// Sessions, stream buffers and messages between nodes go through a
// backplane.Backplane: in memory by default, or on Redis
// (backplane/redisbp) so that several processes behind a load balancer
// are one server.
//
// # Reading the code: a tools/call from bytes in to bytes out
//
// The stops below are the files a warm tools/call runs, in order. The
// call enters this package once, at host.go: from there each package it
// uses returns to it, none calls back in.
//
// In both eras:
//
//  1. router.go: Router.Handler is internal/hostguard's Host and Origin
//     check in front of internal/transport.
//  2. internal/transport/transport.go: servePost checks the media types
//     (internal/stream/media.go), reads the body into a pooled buffer
//     (body.go) and parses it once (jsonrpc/parse.go, whose plain path
//     reads the envelope with internal/jsonscan), then tells the eras
//     apart (internal/stateless/wire.go).
//
// In a session (2025-03-26 … 2025-11-25):
//
//  3. transport.go: sessionFor finds the session the Mcp-Session-Id names
//     (internal/session: table.go, deployment.go, on the backplane) and
//     runs connect through host.go (host.Connect, policy.go);
//     internal/methods/compact.go drops the params members no method
//     reads, and the session opens the request's response stream
//     (internal/session/streams.go, internal/stream/stream.go).
//
// On the stateless 2026-07-28 wire:
//
//  3. internal/transport/stateless.go: serveStateless reads the params
//     and _meta (internal/stateless: request.go, plain.go), checks them
//     against the headers that mirror them, runs connect through host.go,
//     and opens the request's response stream.
//
// In both eras again:
//
//  4. host.go hands the message to exchange.go: Router.dispatch builds the
//     Request (request.go, whose name, arguments and _meta
//     internal/methods/envelope.go reads once), the Context and the Stream,
//     registers the request with its session (internal/session/requests.go)
//     or opens the 2026-07-28 call state (internal/stateless/call.go), and
//     checks the params against the method (internal/methods: Find,
//     strict.go).
//  5. exchange.go: call sends a tools/call straight to CallTool, with the
//     name the envelope read (methods.ReadCallTool); CallTool finds the
//     declaration in the catalog snapshot the caller may see (connect's
//     grant, internal/access) and runs it.
//  6. declare.go: the declaration validates the arguments (package params)
//     and runs the application's middleware and handler (exchange.invoke;
//     safely turns a panic into an error).
//  7. exchange.go: finish shapes the Result into a CallToolResult
//     (internal/methods/shape.go); respond encodes it into a pooled buffer
//     (on 2026-07-28 with resultType and, appended to the encoded result,
//     serverInfo: internal/stateless/result.go), records the request for
//     the probe and the request log (internal/probe, internal/reqctx), and
//     sends the response (jsonrpc/encode.go) on the request's stream
//     (internal/stream), which writes it as JSON (attach.go), or as SSE
//     once the work has streamed progress.
//
// # Authorization
//
// auth.JWT verifies bearer tokens and puts the caller (package principal)
// in the request context; Scopes and Policy restrict tools, prompts and
// resources per route, hiding them from callers who lack access and
// answering their use with a 403 step-up challenge.
package specter
