// Package handlers answers the MCP methods a Specter router serves.
//
// Each method decodes and checks its params, asks a Server for what this
// caller may see or do, and shapes the result: pagination with opaque
// cursors, deterministic order, the empty results some methods require.
// The Server interface is implemented by the router once per request, with
// connect's allow-lists already applied, so this package never sees user
// handlers, HTTP or sessions.
package handlers
