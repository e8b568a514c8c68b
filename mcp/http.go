package mcp

import (
	"fmt"
	"net/http"

	"github.com/specter-mcp/specter/jsonrpc"
)

// HTTPError is an MCP request that ended with an HTTP status and no
// JSON-RPC answer, seen from either end. A server's connect step returns
// one to refuse a caller (see specter.Unauthorized and specter.Forbidden);
// a client gets one for a response that carried no JSON-RPC message.
type HTTPError struct {
	Status int
	// Message is the server's reason; on a client, the start of the
	// response body.
	Message string
	// Scope, when a server sets it, is named in the WWW-Authenticate
	// challenge as the scope the client should ask for.
	Scope string
	// Header is the response's header, on a client.
	Header http.Header
	// Err is the JSON-RPC error the response body held, on a client, or
	// nil; errors.As finds it through the HTTPError.
	Err *jsonrpc.Error
}

func (e *HTTPError) Error() string {
	switch {
	case e.Err != nil:
		return fmt.Sprintf("HTTP %d: %v", e.Status, e.Err)
	case e.Message == "":
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

// Unwrap returns the JSON-RPC error of the body, if any.
func (e *HTTPError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}
