// Package interop tests Specter's client half (package client, its Host
// and its OAuth client) against real MCP servers nobody here wrote: the
// reference servers from npm (server-everything, server-filesystem,
// server-memory), servers built with the official TypeScript SDKs v1 and
// v2, over stdio and Streamable HTTP on loopback, and node-oidc-provider as
// the authorization server. The npm harness beside this file pins them all
// and Node itself; `make test` installs it with npm ci.
package interop
