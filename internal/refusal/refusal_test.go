package refusal

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/specter-mcp/specter/jsonrpc"
)

func TestRefusals(t *testing.T) {
	tests := []struct {
		name   string
		e      *Error
		status int
		code   int
		msg    string
	}{
		{"MethodNotAllowed", MethodNotAllowed, 405, jsonrpc.CodeInvalidRequest, "Method Not Allowed: use POST, GET or DELETE"},
		{"UnsupportedMediaType", UnsupportedMediaType, 415, jsonrpc.CodeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json"},
		{"NotAcceptable", NotAcceptable, 406, jsonrpc.CodeInvalidRequest, "Not Acceptable: Accept must list application/json and text/event-stream"},
		{"NotAcceptableStream", NotAcceptableStream, 406, jsonrpc.CodeInvalidRequest, "Not Acceptable: Accept must list text/event-stream"},
		{"UnreadableBody", UnreadableBody, 400, jsonrpc.CodeParseError, "parse error: could not read the body"},
		{"SessionRequired", SessionRequired, 400, jsonrpc.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required; send initialize first"},
		{"SessionRequiredTerse", SessionRequiredTerse, 400, jsonrpc.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required"},
		{"InitializeInBatch", InitializeInBatch, 400, jsonrpc.CodeInvalidRequest, "Invalid Request: initialize must not be part of a batch"},
		{"SessionNotFound", SessionNotFound, 404, jsonrpc.CodeInvalidRequest, "Not Found: unknown or ended session; initialize a new one"},
		{"StreamOpen", StreamOpen, 409, jsonrpc.CodeInvalidRequest, "Conflict: this session already has a GET stream open"},
		{"ShuttingDown", ShuttingDown, 503, jsonrpc.CodeInternalError, "Service Unavailable: the server is shutting down"},
		{"TooManySessions", TooManySessions, 503, jsonrpc.CodeInternalError, "Service Unavailable: too many sessions; try again later"},
		{"StorageUnavailable", StorageUnavailable, 503, jsonrpc.CodeInternalError, "Service Unavailable: session storage is unreachable; retry shortly"},
		{"Internal", Internal, 500, jsonrpc.CodeInternalError, "Internal error"},
		{"StatelessBatch", StatelessBatch, 400, jsonrpc.CodeInvalidRequest, "Invalid Request: protocol version 2026-07-28 takes one message per POST, not a batch"},
		{"StatelessResponse", StatelessResponse, 400, jsonrpc.CodeInvalidRequest, "Invalid Request: in protocol version 2026-07-28 clients send no responses; answer input requests by retrying the request"},
		{"BodyTooLarge", BodyTooLarge(4096), 413, jsonrpc.CodeInvalidRequest, "Request Entity Too Large: the body exceeds 4096 bytes"},
		{"UnsupportedVersion", UnsupportedVersion("1999"), 400, jsonrpc.CodeInvalidRequest, `Bad Request: unsupported MCP-Protocol-Version "1999"; supported: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05`},
		{"BatchNotSupported", BatchNotSupported("2025-06-18"), 400, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported in protocol version 2025-06-18"},
		{"UnknownLastEventID", UnknownLastEventID("x:1"), 400, jsonrpc.CodeInvalidRequest, `Bad Request: Last-Event-ID "x:1" names no stream of this session`},
		{"Status", Status(403, "admins only"), 403, jsonrpc.CodeInvalidRequest, "Forbidden: admins only"},
		{"InvalidParams", InvalidParams(errors.New("boom")), 400, jsonrpc.CodeInvalidParams, "Invalid params: " + jsonrpc.DescribeParams(errors.New("boom"))},
		{"MethodNotFound", MethodNotFound("nope/x"), 404, jsonrpc.CodeMethodNotFound, "Method not found: nope/x"},
		{"TooManyRequests", TooManyRequests(3), 429, -32000, "Too Many Requests: rate limit exceeded, retry after 3 s"},
		{"SessionsPerCaller", SessionsPerCaller(100), 429, -32000, "Too Many Requests: this caller already holds 100 sessions on this server, the most allowed; end one (DELETE with its Mcp-Session-Id) before starting another"},
		{"StreamsPerCaller", StreamsPerCaller(100), 429, -32000, "Too Many Requests: this caller already has 100 GET streams open on this server, the most allowed; close one before opening another"},
		{"ListenersPerCaller", ListenersPerCaller(16), 429, -32000, "Too Many Requests: this caller already has 16 subscriptions/listen streams open on this server, the most allowed; close one before opening another"},
		{"UnknownTask", UnknownTask("t1"), 400, jsonrpc.CodeInvalidParams, `Invalid params: unknown taskId "t1"`},
		{"BadRequest", BadRequest(jsonrpc.Errorf(-32020, "Header mismatch: x")), 400, -32020, "Header mismatch: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.e.Status != tt.status || tt.e.RPC.Code != tt.code || tt.e.RPC.Message != tt.msg {
				t.Errorf("%d %d %q, want %d %d %q", tt.e.Status, tt.e.RPC.Code, tt.e.RPC.Message, tt.status, tt.code, tt.msg)
			}
		})
	}
}

func TestUnsupportedStatelessVersion(t *testing.T) {
	e := UnsupportedStatelessVersion("2030-01-01", []string{"2026-07-28"})
	if e.Status != 400 || e.RPC.Code != jsonrpc.CodeUnsupportedVersion || e.RPC.Message != `Unsupported protocol version "2030-01-01"` {
		t.Errorf("%d %d %q", e.Status, e.RPC.Code, e.RPC.Message)
	}
	w := httptest.NewRecorder()
	Write(w, nil, e)
	want := `{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version \"2030-01-01\"","data":{"requested":"2030-01-01","supported":["2026-07-28"]}}}`
	if got := w.Body.String(); got != want {
		t.Errorf("body %s\nwant %s", got, want)
	}
}

func TestWrite(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, jsonrpc.ID(`7`), SessionNotFound)
	if w.Code != http.StatusNotFound {
		t.Errorf("status %d", w.Code)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Not Found: unknown or ended session; initialize a new one"}}`
	if got := w.Body.String(); got != want {
		t.Errorf("body %s\nwant %s", got, want)
	}
}

func TestErrorWrapsTheJSONRPCError(t *testing.T) {
	var je *jsonrpc.Error
	if !errors.As(TooManySessions, &je) || je != TooManySessions.RPC {
		t.Errorf("errors.As found %v", je)
	}
	if got, want := TooManySessions.Error(), "refused with 503: Service Unavailable: too many sessions; try again later"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
