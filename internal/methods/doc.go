// Package methods answers the MCP methods a Specter router serves.
//
// Each method reads its params (the envelope every request shares, then
// what the method adds), asks a Server for what this caller may see or do,
// and shapes the result: pagination with opaque cursors, deterministic
// order, the empty results some methods require, and the tool, prompt and
// resource results a handler's reply becomes. The Server interface is
// implemented by the router once per request, with connect's allow-lists
// already applied, so this package never sees user handlers, HTTP or
// sessions.
package methods
