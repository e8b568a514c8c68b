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
//   - internal/transport: the POST is read and parsed (package jsonrpc);
//     the session is found (internal/cluster), or a 2026-07-28 request is
//     checked (internal/modern); connect runs through host.go.
//   - exchange.go: dispatch builds the Request, Context and Stream and
//     answers as handlers.Server over the caller's view of the catalog.
//   - handlers: the MCP method decodes its params and calls CallTool.
//   - declare.go: the declaration validates the arguments (package
//     params) and runs the application's handler.
//   - internal/shape: the handler's Result becomes a CallToolResult.
//   - internal/stream: the encoded response leaves as JSON or SSE.
//
// # Authorization
//
// auth.JWT verifies bearer tokens and puts the caller (package principal)
// in the request context; Scopes and Policy restrict tools, prompts and
// resources per route, hiding them from callers who lack access and
// answering their use with a 403 step-up challenge.
package specter
