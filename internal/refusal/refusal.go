// Package refusal names the answers a Specter transport gives when it
// refuses an HTTP request before any MCP method runs: each is an HTTP
// status with a JSON-RPC error body, and Write is the one place that
// writes them.
//
// The messages are part of the wire: clients, tests and the conformance
// suite read them, so a change here is a change of behaviour.
package refusal

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Error is a refused request: the HTTP status of the answer and the
// JSON-RPC error its body carries.
type Error struct {
	Status int
	RPC    *jsonrpc.Error
}

// Error returns the JSON-RPC message with the HTTP status.
func (e *Error) Error() string { return fmt.Sprintf("refused with %d: %s", e.Status, e.RPC.Message) }

// Unwrap returns the JSON-RPC error.
func (e *Error) Unwrap() error { return e.RPC }

// Write answers the request id (nil when unknown) with e.
func Write(w http.ResponseWriter, id jsonrpc.ID, e *Error) {
	jsonrpc.WriteError(w, e.Status, id, e.RPC)
}

// New returns a refusal with status and a JSON-RPC error of code whose
// message is format, formatted with args as by fmt.Sprintf.
func New(status, code int, format string, args ...any) *Error {
	return &Error{Status: status, RPC: jsonrpc.Errorf(code, format, args...)}
}

// BadRequest answers e, built elsewhere (params, _meta and header checks),
// with 400 Bad Request.
func BadRequest(e *jsonrpc.Error) *Error { return &Error{Status: http.StatusBadRequest, RPC: e} }

// The fixed refusals. SessionRequiredTerse is what GET and DELETE say where
// POST says more; both wordings are on the wire.
var (
	MethodNotAllowed     = New(http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "Method Not Allowed: use POST, GET or DELETE")
	UnsupportedMediaType = New(http.StatusUnsupportedMediaType, jsonrpc.CodeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json")
	NotAcceptable        = New(http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "Not Acceptable: Accept must list application/json and text/event-stream")
	NotAcceptableStream  = New(http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "Not Acceptable: Accept must list text/event-stream")
	UnreadableBody       = New(http.StatusBadRequest, jsonrpc.CodeParseError, "parse error: could not read the body")

	SessionRequired      = New(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required; send initialize first")
	SessionRequiredTerse = New(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required")
	InitializeInBatch    = New(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: initialize must not be part of a batch")
	SessionNotFound      = New(http.StatusNotFound, jsonrpc.CodeInvalidRequest, "Not Found: unknown or ended session; initialize a new one")
	StreamOpen           = New(http.StatusConflict, jsonrpc.CodeInvalidRequest, "Conflict: this session already has a GET stream open")

	ShuttingDown       = New(http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "Service Unavailable: the server is shutting down")
	TooManySessions    = New(http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "Service Unavailable: too many sessions; try again later")
	StorageUnavailable = New(http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "Service Unavailable: session storage is unreachable; retry shortly")
	LimiterUnavailable = New(http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "Service Unavailable: the rate limit's store is unreachable; retry shortly")
	Internal           = New(http.StatusInternalServerError, jsonrpc.CodeInternalError, "Internal error")

	// 2026-07-28 takes one request per POST and no responses.
	StatelessBatch    = New(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: protocol version %s takes one message per POST, not a batch", mcp.Version20260728)
	StatelessResponse = New(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: in protocol version %s clients send no responses; answer input requests by retrying the request", mcp.Version20260728)
)

// BodyTooLarge refuses a body over limit bytes.
func BodyTooLarge(limit int64) *Error {
	return New(http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "Request Entity Too Large: the body exceeds %d bytes", limit)
}

// UnsupportedVersion refuses a POST whose MCP-Protocol-Version header
// names no session-era version, listing those that are.
func UnsupportedVersion(v string) *Error {
	return New(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: unsupported MCP-Protocol-Version %q; supported: %s", v, strings.Join(mcp.SessionVersions, ", "))
}

// BatchNotSupported refuses a batch in a session whose version has none.
func BatchNotSupported(version string) *Error {
	return New(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported in protocol version %s", version)
}

// UnknownLastEventID refuses a GET resuming a stream the session lacks.
func UnknownLastEventID(last string) *Error {
	return New(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Bad Request: Last-Event-ID %q names no stream of this session", last)
}

// Status refuses with an HTTP status and a message of the application's
// (connect's *HTTPError), after the status text.
func Status(status int, message string) *Error {
	return New(status, jsonrpc.CodeInvalidRequest, "%s: %s", http.StatusText(status), message)
}

// InvalidParams refuses params that do not decode; err is the decoding
// error, described as jsonrpc.DescribeParams does.
func InvalidParams(err error) *Error {
	return New(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "Invalid params: %s", jsonrpc.DescribeParams(err))
}

// UnsupportedStatelessVersion refuses a 2026-07-28-style request for a
// revision the server does not serve statelessly.
func UnsupportedStatelessVersion(requested string, supported []string) *Error {
	return BadRequest(jsonrpc.Errorf(jsonrpc.CodeUnsupportedVersion, "Unsupported protocol version %q", requested).
		WithData(map[string]any{"supported": supported, "requested": requested}))
}

// MethodNotFound refuses a 2026-07-28 request for an unknown method.
func MethodNotFound(method string) *Error {
	return New(http.StatusNotFound, jsonrpc.CodeMethodNotFound, "Method not found: %s", method)
}

// TooManyRequests refuses a caller over its rate limit, to retry after
// secs seconds (RetrySeconds). -32000 lies in JSON-RPC's range for
// server-defined errors: the request itself is fine, the server declines
// it for now.
func TooManyRequests(secs int) *Error {
	return New(http.StatusTooManyRequests, codeServerBusy, "Too Many Requests: rate limit exceeded, retry after %d s", secs)
}

// TooManyMessages is the answer to one request of a JSON-RPC batch that
// its caller's rate limit has no room for: TooManyRequests's error, with
// data {"retryAfter": secs}, since a batch element has no Retry-After
// header of its own.
func TooManyMessages(secs int) *jsonrpc.Error {
	return jsonrpc.Errorf(codeServerBusy, "Too Many Requests: rate limit exceeded, retry after %d s", secs).
		WithData(map[string]int{"retryAfter": secs})
}

const codeServerBusy = -32000

// RetrySeconds is wait in whole seconds for Retry-After: rounded up, so
// that a client which obeys is not refused again, at least 1, and at most
// a day, so that absurd rates cannot overflow.
func RetrySeconds(wait time.Duration) int {
	return int(min(max(math.Ceil(wait.Seconds()), 1), 86400))
}

// BodyTimeout refuses a request whose body did not arrive within limit.
func BodyTimeout(limit time.Duration) *Error {
	return New(http.StatusRequestTimeout, jsonrpc.CodeInvalidRequest, "Request Timeout: the body did not arrive within %s", limit)
}

// Per-caller limits (Specter's MaxSessionsPerPrincipal and the like): a
// caller holding as much as it may gets 429 until it lets something go.
// -32000, as for TooManyRequests: the request is fine, the caller holds
// too much.

// SessionsPerCaller refuses an initialize from a caller that already
// holds limit sessions on this server.
func SessionsPerCaller(limit int) *Error {
	return New(http.StatusTooManyRequests, -32000, "Too Many Requests: this caller already holds %d sessions on this server, the most allowed; end one (DELETE with its Mcp-Session-Id) before starting another", limit)
}

// StreamsPerCaller refuses a GET from a caller that already has limit
// GET streams open on this server.
func StreamsPerCaller(limit int) *Error {
	return New(http.StatusTooManyRequests, -32000, "Too Many Requests: this caller already has %d GET streams open on this server, the most allowed; close one before opening another", limit)
}

// ListenersPerCaller refuses a subscriptions/listen from a caller that
// already has limit listen streams open on this server.
func ListenersPerCaller(limit int) *Error {
	return New(http.StatusTooManyRequests, -32000, "Too Many Requests: this caller already has %d subscriptions/listen streams open on this server, the most allowed; close one before opening another", limit)
}

// UnknownTask refuses a tasks/* request for a task the caller does not
// have (never created, expired, or another principal's).
func UnknownTask(id string) *Error {
	return New(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "Invalid params: unknown taskId %q", id)
}
