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
// One Config states the server's authorization facts: its Resource (the
// MCP endpoint's URL) is the audience tokens must name, the resource of
// its protected resource metadata (RFC 9728), which MountMetadata serves
// at the well-known URLs, and, through MetadataURL, the URL every
// challenge names. JWT puts that URL in each request's context, so the
// Specter router's own 401 and 403 challenges name it too.
//
// Refusals follow RFC 6750 and the MCP specification: 401 with a
// "WWW-Authenticate: Bearer" challenge pointing at the metadata, or 400
// for a malformed request, each with a JSON-RPC error body.
//
// Apps that issue tokens themselves rather than through an OAuth
// authorization server have two ways in. Config.InHouse verifies the app's
// own JWTs (HS256 with its own secret, say) with no "iss", "aud" or RFC 9728
// metadata required. Bridge keeps whatever authentication middleware the
// app already has (echo-jwt, sessions, API keys) and adapts it: its caller
// becomes the principal, its refusals the MCP-shaped 401 above.
//
// DevIssuer mints tokens its Config accepts, for development and tests
// only.
package auth
