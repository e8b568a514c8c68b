package specter

import (
	"encoding/json"

	"github.com/specter-mcp/specter/internal/methods"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Request describes the MCP request a handler answers.
type Request struct {
	ID     jsonrpc.ID
	Method string
	// Name is the tool or prompt name, or the resource URI.
	Name string
	// Arguments are the raw arguments of a tools/call or prompts/get.
	Arguments json.RawMessage
	// ProgressToken is the client's _meta.progressToken, as sent, or nil.
	ProgressToken json.RawMessage
	// Meta is the request's raw _meta object, or nil.
	Meta json.RawMessage
	// Declaration is what a call runs, for middleware; nil for other methods.
	Declaration *Declaration

	Version            string // negotiated protocol version
	SessionID          string
	ClientInfo         mcp.Implementation
	ClientCapabilities mcp.ClientCapabilities

	cursor    string
	stateless *stateless.Call // 2026-07-28 requests only
	task      json.RawMessage // the task member of a task-augmented request in a session
}

// Stateless reports whether the request was made on the stateless 2026-07-28
// wire rather than in a session.
func (r *Request) Stateless() bool { return r.stateless != nil }

// logLevel is the least severe level sent to the client for this request,
// and whether logging is on at all.
func (r *Request) logLevel(s *session.Session) (mcp.LoggingLevel, bool) {
	if r.stateless != nil {
		// 2026-07-28: a request without a log level gets no log messages.
		return r.stateless.Meta.LogLevel, r.stateless.Meta.LogLevel != ""
	}
	if s == nil {
		return "", false
	}
	return s.Level(), true
}

// Cursor is the pagination cursor the client sent ("" for the first page).
func (r *Request) Cursor() string { return r.cursor }

// newRequest reads a request from the message and what its session or
// its 2026-07-28 _meta tell.
func newRequest(m *jsonrpc.Message, s *session.Session, call *stateless.Call) *Request {
	r := &Request{ID: m.ID, Method: m.Method, stateless: call}
	switch {
	case s != nil:
		r.Version, r.SessionID, r.ClientInfo, r.ClientCapabilities = s.Version(), s.ID(), s.Client(), s.Capabilities()
	case call != nil:
		r.Version, r.ClientInfo, r.ClientCapabilities = call.Client()
	}
	env := methods.ReadEnvelope(m.Params, call == nil)
	r.Name, r.cursor, r.Arguments, r.Meta, r.ProgressToken, r.task = env.Name, env.Cursor, env.Arguments, env.Meta, env.ProgressToken, env.Task
	if call != nil && env.Meta != nil {
		r.ProgressToken = methods.Token(call.Meta.ProgressToken) // the 2026-07-28 _meta is parsed already
	}
	return r
}
