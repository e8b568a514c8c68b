// Package jsonrpc reads and writes JSON-RPC 2.0 messages as MCP uses them.
//
// It knows nothing of MCP methods: it parses a request body into messages
// (single or batch), classifies each one (request, notification, response,
// error response), and encodes responses and errors. Error codes defined by
// JSON-RPC and by MCP live here so every layer reports the same numbers.
package jsonrpc
