// Package inspector is a web page for poking at an MCP server during
// development, served by an http.Handler with its assets embedded: it
// lists the server's tools, prompts, resources and templates, calls a
// tool through a form generated from its input schema (with a progress
// bar, the server's logs as they stream, and a button that cancels the
// call at the server), answers the server's elicitation requests in the
// page, reads resources and prompts, renders MCP Apps UI resources
// (text/html;profile=mcp-app) in a sandboxed iframe as their host (it
// answers ui/initialize, sends the tool's input and result, and carries
// the view's tools/call and resources/read to the server), and
// reconnects in either protocol era.
//
// specter inspect --web serves it for one server. An application can
// mount it for its developers, like Swagger UI for REST, behind its own
// authentication:
//
//	in := inspector.New(inspector.Config{
//		Target: "this app",
//		Connect: func(ctx context.Context, opts client.Options) (*client.Client, error) {
//			return client.Connect(ctx, client.InMemory(router), &opts)
//		},
//	})
//	defer in.Close()
//	mux.Handle("/debug/mcp/", requireAdmin(http.StripPrefix("/debug/mcp", in)))
//
// The page's requests that act (connect, call, read, answer) must carry
// the X-Specter-Inspector header, which a page of another origin cannot
// send without a CORS preflight that the inspector never grants.
package inspector
