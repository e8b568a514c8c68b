// Package mcp holds the Model Context Protocol's wire types: what servers
// and clients exchange, as JSON. It has no behaviour beyond encoding, so the
// router, the method handlers and test clients can all share it without
// importing each other.
//
// Field names and optionality follow the official schema of the newest
// session-era revision (2025-11-25); older revisions are subsets of it.
package mcp
