package specter

import (
	"errors"
	"net/http"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Unauthorized refuses a caller that did not prove who it is: HTTP 401
// with a WWW-Authenticate: Bearer challenge (pointing at the protected
// resource metadata when the router has ResourceMetadata set).
func Unauthorized(message string) error {
	return &mcp.HTTPError{Status: http.StatusUnauthorized, Message: message}
}

// Forbidden refuses a known caller: HTTP 403.
//
// Both return an *mcp.HTTPError; connect may return one of its own for
// another status, or to name the scope a step-up should ask for.
func Forbidden(message string) error {
	return &mcp.HTTPError{Status: http.StatusForbidden, Message: message}
}

// ToolError is an error a tool reports to the model rather than to the
// protocol: it becomes a tool result with isError set, so the LLM reads the
// message and can try again differently.
type ToolError struct {
	Message string
}

func (e *ToolError) Error() string { return e.Message }

// NewToolError returns a ToolError with the given message.
func NewToolError(message string) *ToolError { return &ToolError{Message: message} }

// ErrCapability matches (errors.Is) the *CapabilityError that Elicit,
// Sample and ListRoots return when the client did not declare the
// capability they need.
var ErrCapability = errors.New("specter: the client did not declare the capability this request needs")

// ResourceNotFound is the error for a resource URI that names nothing: a
// template handler returns it (specter.Error(specter.ResourceNotFound(uri)))
// when the id in the URI does not exist, and the client gets the same
// answer as for an undeclared URI.
func ResourceNotFound(uri string) error {
	return jsonrpc.Errorf(jsonrpc.CodeResourceNotFound, "Resource not found: %s", uri).WithData(map[string]string{"uri": uri})
}

// InvalidParams is an error about a request's params that the client can
// fix, such as a malformed cursor given to a List handler.
func InvalidParams(message string) error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s", message)
}
