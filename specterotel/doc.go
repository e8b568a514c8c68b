// Package specterotel reports what a Specter router does to
// OpenTelemetry: a span for every MCP request, with the NoReply work it
// starts and the requests it sends the client as child spans, and
// metrics of requests, sessions, streams, listeners and backplane errors.
//
// It builds on the router's dependency-free core (package observe): only
// an application that imports this package depends on OpenTelemetry, and
// then only on its API; the application chooses the SDK and exporters.
//
//	tel := specterotel.New() // the global providers and propagator
//	bp, err := redisbp.New(ctx, redisURL) // or backplane.NewMemory()
//	…
//	r := specter.NewRouter("notes", "1.0.0", tel.Instrument(), specter.Backplane(tel.Backplane(bp)))
//	if err := tel.Observe(r); err != nil { … }
//
// # Spans
//
// A request's span is a server span named after the MCP method and, for
// tools/call and prompts/get of a declared name, the name ("tools/call
// get_weather"), with the attributes of the OpenTelemetry semantic
// conventions for MCP (mcp.method.name, mcp.protocol.version,
// mcp.session.id, jsonrpc.request.id, gen_ai.tool.name,
// gen_ai.prompt.name, mcp.resource.uri, rpc.response.status_code,
// error.type) and Specter's own: specter.era ("session" or "stateless")
// and specter.outcome. Its parent is the caller's W3C trace context:
// traceparent and tracestate in the request's _meta (as MCP 2026-07-28
// reserves them), or else in the HTTP headers. Handlers find the span in
// their Context (trace.SpanFromContext(c)), and so do their own spans.
//
// # Metrics
//
// mcp.server.operation.duration is a histogram (seconds) of every request
// by mcp.method.name and, for calls, the declaration called
// (gen_ai.tool.name, gen_ai.prompt.name, or specter.declaration for
// resources/read and completion/complete), with
// specter.outcome and error.type; its count is the number of requests.
// Names come from the declarations, never from the client: a call of a
// name that nothing declares counts under "_unknown", and an unknown
// method under "_unknown", so clients cannot grow the label sets.
// specter.server.requests.active counts the requests in flight;
// specter.server.sessions, specter.server.streams and
// specter.server.listeners are this node's sessions, attached GET streams
// and subscriptions/listen streams (Observe); specter.backplane.errors
// counts failed backplane operations (Backplane).
package specterotel
