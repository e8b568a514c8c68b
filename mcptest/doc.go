// Package mcptest helps test MCP servers built with Specter, the way
// net/http/httptest helps test handlers: NewServer serves a router on a
// loopback port, and Client is a real MCP client over Streamable HTTP that
// reads JSON and SSE answers, answers server-to-client requests, opens and
// resumes streams, and shows every message it receives to an observer (for
// example a JSON Schema check).
package mcptest
