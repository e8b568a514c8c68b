// Package integration holds Specter's end-to-end tests: real HTTP through
// httptest, the mcptest client, every server message checked against the
// official MCP JSON Schema of its protocol version, and the official
// conformance suite run against the fixture server.
package integration
