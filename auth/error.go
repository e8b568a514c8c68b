package auth

import (
	"net/http"
	"strings"

	"github.com/specter-mcp/specter/jsonrpc"
)

// RFC 6750 §3.1 error codes used in challenges.
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

// Error is why a request was refused. Description is safe to show the
// client; Err holds the detail for logs and errors.Is (for example
// jwt.ErrTokenExpired). Neither ever contains the token.
type Error struct {
	// Status is the HTTP status: 400 or 401.
	Status int
	// Code is the RFC 6750 error code of the challenge; empty when the
	// request carried no bearer token at all.
	Code string
	// Description is a short reason for the client.
	Description string
	// Challenge is the WWW-Authenticate value the default answer sends.
	Challenge string
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return "auth: " + e.Description + ": " + e.Err.Error()
	}
	return "auth: " + e.Description
}

func (e *Error) Unwrap() error { return e.Err }

// Respond writes the default answer to a refused request: e.Status, the
// WWW-Authenticate challenge and a JSON-RPC error without an id (the
// request was never read), such as
//
//	{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: token expired"}}
func (e *Error) Respond(w http.ResponseWriter) {
	h := w.Header()
	h.Set("WWW-Authenticate", e.Challenge)
	h.Set("Cache-Control", "no-store")
	jsonrpc.WriteError(w, e.Status, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "%s: %s", http.StatusText(e.Status), e.Description))
}

// Challenge builds the value of a WWW-Authenticate header for the Bearer
// scheme (RFC 6750 §3, RFC 9728 §5.1), such as
//
//	Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read", error="invalid_token"
//
// Empty arguments are left out; with none, the value is just "Bearer".
// errCode is one of the Code constants, or empty when the request carried
// no credentials (RFC 6750 §3.1 asks for no error code then). The router
// and this package both build challenges with it so that they read alike.
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
