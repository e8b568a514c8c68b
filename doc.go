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
// In both eras:
//
//  1. router.go: Router.Handler is internal/hostguard's Host and Origin
//     check in front of internal/transport.
//  2. internal/transport/transport.go: servePost checks the media types,
//     reads the body (body.go) and parses it once (jsonrpc.Parse), then
//     tells the eras apart (internal/stateless.Is).
//
// In a session (2025-03-26 … 2025-11-25):
//
//  3. transport.go: sessionFor finds the session the Mcp-Session-Id names
//     (internal/session: Cluster.Lookup and Admit, on the backplane) and
//     runs connect through host.go (host.Connect); methods.Compact drops
//     the params members no method reads, and the session opens the
//     request's response stream (internal/stream).
//
// On the stateless 2026-07-28 wire:
//
//  3. internal/transport/stateless.go: serveStateless refuses ambiguous
//     params (methods.CheckParams), checks _meta against the headers that
//     mirror it (internal/stateless.Read), runs connect through host.go,
//     and checks the Mcp-Param headers against the arguments.
//
// In both eras again:
//
//  4. host.go hands the message to exchange.go: Router.dispatch builds the
//     Request (request.go, whose name, arguments and _meta
//     methods.ReadEnvelope reads), the Context and the Stream, opens a
//     2026-07-28 requestState (internal/stateless), and finds the method in
//     the method table (internal/methods: Find, which checks the params'
//     keys in strict.go).
//  5. internal/methods/methods.go: callTool reads the name and arguments
//     and calls the exchange's CallTool (exchange.go), which finds the
//     declaration in the catalog snapshot the caller may see (connect's
//     grant, internal/access) and runs it.
//  6. declare.go: the declaration validates the arguments (package params)
//     and runs the application's middleware and handler (exchange.invoke),
//     a panic becoming an error (internal/guard).
//  7. exchange.go: finish shapes the Result into a CallToolResult
//     (internal/methods/shape.go), to which, on 2026-07-28, decorate adds
//     resultType, the caching hint and serverInfo; respond encodes the
//     response (package jsonrpc) onto the request's stream
//     (internal/stream), which writes it as JSON, or as SSE once the
//     work has streamed progress.
//
// # Authorization
//
// auth.JWT verifies bearer tokens and puts the caller (package principal)
// in the request context; Scopes and Policy restrict tools, prompts and
// resources per route, hiding them from callers who lack access and
// answering their use with a 403 step-up challenge.
package specter
