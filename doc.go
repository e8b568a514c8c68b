// Package specter builds MCP (Model Context Protocol) servers inside Echo
// and net/http applications.
//
// A Router holds the tools, prompts and resources an application offers.
// It is mounted under a path of an Echo group (Router.Mount) or served as
// an http.Handler (Router.Handler). A connect function runs on every MCP
// request: it authenticates the caller and decides which tools, prompts and
// resources that caller may see and use. Handlers receive validated params,
// the request and a per-request Context, and answer with Reply now, or with
// NoReply after starting Async work that streams progress and logs and
// replies later.
//
//	r := specter.NewRouter("notes", "1.0.0")
//	r.Tool("echo", func(p specter.Params, req *specter.Request, c *specter.Context) specter.Result {
//		return specter.Reply(p.String("text"))
//	}, specter.Description("Echo the text back"), params.String("text", params.Required()))
//	r.Mount(e.Group("/mcp"))
//
// The router speaks the session-based Streamable HTTP transport of MCP
// revisions 2025-03-26 through 2025-11-25 (initialize, Mcp-Session-Id,
// resumable SSE streams, server-to-client requests).
package specter
