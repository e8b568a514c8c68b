package auth

import (
	"net/http"

	"github.com/specter-mcp/specter/internal/bearer"
	"github.com/specter-mcp/specter/jsonrpc"
)

// RFC 6750 §3.1 error codes used in challenges; the router's challenges
// use the same.
const (
	// CodeInvalidRequest means the request is malformed (400).
	CodeInvalidRequest = bearer.CodeInvalidRequest
	// CodeInvalidToken means the token is expired, revoked, malformed or
	// otherwise invalid (401).
	CodeInvalidToken = bearer.CodeInvalidToken
	// CodeInsufficientScope means the token lacks a scope the request
	// needs (403).
	CodeInsufficientScope = bearer.CodeInsufficientScope
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
	// Challenge is the WWW-Authenticate value the default answer sends;
	// empty for none (a 400 or 403 of Bridge).
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
	if e.Challenge != "" {
		h.Set("WWW-Authenticate", e.Challenge)
	}
	h.Set("Cache-Control", "no-store")
	jsonrpc.WriteError(w, e.Status, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "%s: %s", http.StatusText(e.Status), e.Description))
}
