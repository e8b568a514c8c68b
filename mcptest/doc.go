// Package mcptest helps test MCP servers built with Specter, the way
// net/http/httptest helps test handlers: NewServer serves any handler (a
// router, or a whole Echo app with its middleware and well-known URLs) on
// a loopback port; Client is a real session-era client (initialize,
// Mcp-Session-Id) over Streamable HTTP that reads JSON and SSE answers,
// answers server-to-client requests, and opens and resumes streams; and
// StatelessClient speaks the stateless 2026-07-28 wire (per-request _meta,
// standard headers, input_required retries, subscriptions/listen). Both
// show every message they receive to an observer, for example a JSON
// Schema check, and both offer the MCP methods of Caller with the same
// result types, so that one test can run in either era.
//
// To cancel a session-era call, take its id first (NewID), send it with
// CallID and Cancel it; the call returns ErrCancelled. A 2026-07-28 call
// is cancelled by cancelling its context, which closes its stream.
//
// Context and WaitUntil bound a test's waits by the test's own deadline
// rather than by a guess at how fast the machine is: a wait for something
// that happens ends as soon as it happens, and only one for something
// that never happens fails.
package mcptest
