// Package oauth is the OAuth 2.1 client of MCP authorization, as an
// http.RoundTripper: put a Transport under the http.Client of a
// client.HTTPTransport and requests to protected MCP servers are
// authorized as the servers ask.
//
// Discovery follows the 401's WWW-Authenticate header (resource_metadata,
// scope) to the protected resource metadata (RFC 9728; path-based, then
// root), whose resource must be the server's, and to its authorization
// server's metadata (RFC 8414, then OpenID Connect discovery), whose
// issuer must be the one asked for. Servers of the 2025-03-26 revision,
// without resource metadata, are served at their origin. The client is
// pre-registered, identified by its Client ID Metadata Document, or
// registered dynamically, once per authorization server. Tokens come
// from the authorization code grant with PKCE (S256), the resource
// indicator (RFC 8707) and the iss check (RFC 9207), through a
// RedirectHandler; or from a Grant: client credentials (secret or
// private_key_jwt), a JWT bearer assertion (workload identity) or
// enterprise-managed authorization (token exchange, then JWT bearer).
// Tokens can be bound to a key with DPoP (RFC 9449), nonces included.
// A Store (FileStore for command-line tools) keeps tokens per issuer and
// resource, and dynamic registrations per issuer, from one run to the
// next.
//
// What an MCP server says is not trusted further than its own origin:
// resource metadata is read from that origin only (unless
// Config.AllowCrossOriginMetadata), no discovery, registration or token
// request follows a redirect to another origin, every endpoint that
// metadata names must be https (http only on loopback) before it is
// requested or handed to the RedirectHandler, Config.CheckServer vets each
// authorization server URL (by default, DenyPrivateFromPublic keeps a
// public server from pointing at private addresses), a Grant's credentials
// go only to the issuers it names, an authorization server that does not
// advertise PKCE with S256 is refused, and LoopbackRedirect ignores
// callbacks that lack the flow's state.
package oauth
