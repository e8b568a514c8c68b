package jsonrpc

import "net/http"

// WriteError answers an HTTP request with status and a JSON-RPC error
// response as the body: how an MCP endpoint refuses a request, from a
// malformed body to a missing token or a rate limit. A zero id is left
// out (see AppendError).
func WriteError(w http.ResponseWriter, status int, id ID, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(AppendError(nil, id, e))
}
