// Package auth makes an MCP server an OAuth 2.1 resource server, as the
// MCP authorization specification requires of HTTP servers that protect
// their endpoint.
//
// JWT (for Echo) and Verifier.Middleware (for net/http) accept a request
// only with a valid JWT access token in an "Authorization: Bearer" header:
// signed with a key from a static set, a JWKS endpoint or a custom
// jwt.Keyfunc, by an allowed algorithm, issued by the configured issuer for
// this server (its resource URI in "aud"), and neither expired nor used
// early. The verified claims go into the request's context, both as *Claims
// (ClaimsFrom) and as the principal.Principal the Specter router reads.
//
// Refusals follow RFC 6750 and the MCP specification: 401 with a
// "WWW-Authenticate: Bearer" challenge pointing at the protected resource
// metadata (RFC 9728), or 400 for a malformed request, each with a JSON-RPC
// error body. MetadataHandler and MountMetadata serve that metadata at its
// well-known URLs.
package auth
