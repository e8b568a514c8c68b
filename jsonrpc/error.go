package jsonrpc

import "fmt"

// Error codes defined by JSON-RPC 2.0.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// CodeRequestCancelled marks, in logs, a request whose client cancelled
// it; no response carries it, since a cancelled request gets none.
const CodeRequestCancelled = -32800

// CodeForbidden refuses a request for want of scopes or by a policy, from
// the implementation-defined range; specter.CodeForbidden is the same.
const CodeForbidden = -32003

// Error codes defined by MCP.
const (
	// CodeResourceNotFound: resources/read of an unknown URI (session era).
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired asks the client to complete a URL elicitation (2025-11-25).
	CodeURLElicitationRequired = -32042
	// CodeHeaderMismatch: an HTTP header disagrees with the body (2026-07-28).
	CodeHeaderMismatch = -32020
	// CodeMissingCapability: the request needs a client capability it did not declare (2026-07-28).
	CodeMissingCapability = -32021
	// CodeUnsupportedVersion: the protocol version is not served (2026-07-28).
	CodeUnsupportedVersion = -32022
)

// Error is a JSON-RPC error object. It is also a Go error.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Errorf returns an error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns a copy of e carrying data.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}

func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc: %s (%d)", e.Message, e.Code)
}
