// Package client is an MCP client for Go programs: agents, gateways,
// command-line tools and tests that call MCP servers, Specter's or
// anyone's.
//
// Connect opens a Transport and agrees on a protocol revision. It probes
// with server/discover for the stateless 2026-07-28 revision and falls
// back to initialize and a session for servers of the session era
// (2024-11-05 to 2025-11-25); a server that refuses the version with
// -32022 is asked again with one from its supported list, and
// Options.Version pins a revision. The methods then work the same in both
// eras:
//
//   - 2026-07-28 requests carry _meta (protocol version, client info and
//     capabilities, log level) and the Mcp-Method, Mcp-Name and
//     Mcp-Param-* headers, the last from the tools' x-mcp-header
//     annotations; an input_required result is answered by the client's
//     handlers and the request retried, requestState echoed verbatim.
//   - In the session era the same Sampling, Elicitation and Roots handlers
//     answer the server's requests; a dropped response stream is resumed
//     with GET and Last-Event-ID after the server's retry delay; Close
//     ends the session with DELETE.
//
// Beyond the methods of the protocol: Tools, Prompts, Resources and
// ResourceTemplates iterate over every page; CallToolInto decodes
// structuredContent into a Go value after checking it against the tool's
// output schema; a tool that requires a task runs as one, and with
// Options.Tasks a task-augmented result is followed to its end and the
// server's sampling and elicitation requests run as tasks when it asks
// (GetTask, UpdateTask and CancelTask drive tasks by hand); RootsChanged
// announces new roots; LoadSkill and ReadSkillFile return skill files only
// once their size, digest and frontmatter match the listing.
//
// Transports: HTTPTransport (Streamable HTTP; its http.Client is where
// authorization plugs in, see package client/oauth; a request refused
// with 404 for its session starts a new session), InMemory (an
// http.Handler such as a Specter router, served in process) and
// CommandTransport (a command speaking newline-delimited JSON on stdio,
// or Content-Length frames). A Transport is anything with a Connect
// method returning a Conn, so a transport of one's own plugs in the same
// way; StreamConn makes a Conn of any byte stream.
package client
