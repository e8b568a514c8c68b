// Package bearer builds the WWW-Authenticate challenges of the Bearer
// scheme (RFC 6750 §3, RFC 9728 §5.1) and carries, in a request's context,
// what they name: the URL of the server's protected resource metadata.
//
// Package auth verifies tokens and refuses bad ones; the router refuses a
// caller that connect turns away (401) or that lacks a tool's scopes (403,
// step-up). Both build their challenges here so that they read alike, and
// auth puts its metadata URL into the context of every request it passes,
// so the router names it without being configured a second time.
package bearer

import (
	"context"
	"net/http"
	"strings"
)

// RFC 6750 §3.1 error codes of a challenge.
const (
	// CodeInvalidRequest means the request is malformed (400).
	CodeInvalidRequest = "invalid_request"
	// CodeInvalidToken means the token is expired, revoked, malformed or
	// otherwise invalid (401).
	CodeInvalidToken = "invalid_token"
	// CodeInsufficientScope means the token lacks a scope the request
	// needs (403).
	CodeInsufficientScope = "insufficient_scope"
)

// Challenge builds the value of a WWW-Authenticate header, such as
//
//	Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read", error="invalid_token"
//
// Empty arguments are left out; with none, the value is just "Bearer".
// errCode is one of the Code constants, or empty when the request carried
// no credentials (RFC 6750 §3.1 asks for no error code then). Quotes and
// backslashes in the values are escaped as quoted-pairs.
func Challenge(resourceMetadataURL string, scopes []string, errCode string) string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	param := func(name, value string) {
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		for _, c := range []byte(value) {
			if c == '"' || c == '\\' {
				b.WriteByte('\\') // quoted-pair, RFC 9110 §5.6.4
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
		sep = ", "
	}
	if resourceMetadataURL != "" {
		param("resource_metadata", resourceMetadataURL)
	}
	if len(scopes) > 0 {
		param("scope", strings.Join(scopes, " "))
	}
	if errCode != "" {
		param("error", errCode)
	}
	return b.String()
}

type metadataKey struct{}

// WithResourceMetadata returns ctx carrying url, the protected resource
// metadata URL that challenges answering the request name.
func WithResourceMetadata(ctx context.Context, url string) context.Context {
	return context.WithValue(ctx, metadataKey{}, url)
}

// ResourceMetadata returns the metadata URL WithResourceMetadata put in
// ctx, or "" when there is none.
func ResourceMetadata(ctx context.Context) string {
	url, _ := ctx.Value(metadataKey{}).(string)
	return url
}

// Refusal returns the challenge that goes with refusing req with status,
// or "" for none: a 401 always has one, with error code invalid_token when
// req carried credentials (RFC 6750 §3.1 asks for none otherwise); a 403
// has one, insufficient_scope, when scope names what was missing. It names
// the metadata URL in req's context (see ResourceMetadata), else fallback.
func Refusal(req *http.Request, status int, scope, fallback string) string {
	code := ""
	switch {
	case status == http.StatusUnauthorized && req.Header.Get("Authorization") != "":
		code = CodeInvalidToken
	case status == http.StatusUnauthorized:
	case status == http.StatusForbidden && scope != "":
		code = CodeInsufficientScope
	default:
		return ""
	}
	url := ResourceMetadata(req.Context())
	if url == "" {
		url = fallback
	}
	return Challenge(url, strings.Fields(scope), code)
}
