package specter

import (
	"encoding/json"

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

	Version            string // negotiated protocol version
	SessionID          string
	ClientInfo         mcp.Implementation
	ClientCapabilities mcp.ClientCapabilities

	cursor string
	modern *modernCall // 2026-07-28 requests only
}

// Modern reports whether the request was made on the stateless 2026-07-28
// wire rather than in a session.
func (r *Request) Modern() bool { return r.modern != nil }

// logLevel is the least severe level sent to the client for this request,
// and whether logging is on at all.
func (r *Request) logLevel(s *session) (mcp.LoggingLevel, bool) {
	if r.modern != nil {
		// 2026-07-28: a request without a log level gets no log messages.
		return r.modern.meta.LogLevel, r.modern.meta.LogLevel != ""
	}
	if s == nil {
		return "", false
	}
	return s.level(), true
}

// Cursor is the pagination cursor the client sent ("" for the first page).
func (r *Request) Cursor() string { return r.cursor }

// envelope is the part of params every request may carry.
type envelope struct {
	Name   string `json:"name"`
	URI    string `json:"uri"`
	Cursor string `json:"cursor"`
	Meta   struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
	RawMeta   json.RawMessage `json:"-"`
	Arguments json.RawMessage `json:"arguments"`
}

func newRequest(m *jsonrpc.Message, s *session, call *modernCall) *Request {
	req := &Request{ID: m.ID, Method: m.Method, modern: call}
	switch {
	case s != nil:
		req.Version, req.SessionID, req.ClientInfo, req.ClientCapabilities = s.version, s.id, s.client, s.caps
	case call != nil:
		req.Version = call.meta.ProtocolVersion
		if call.meta.ClientInfo != nil {
			req.ClientInfo = *call.meta.ClientInfo
		}
		if call.meta.ClientCapabilities != nil {
			req.ClientCapabilities = *call.meta.ClientCapabilities
		}
	}
	if len(m.Params) == 0 || m.Params[0] != '{' {
		return req
	}
	var env struct {
		envelope
		Meta json.RawMessage `json:"_meta"`
	}
	if call != nil && call.meta.ProgressToken != nil {
		req.ProgressToken = call.meta.ProgressToken
	}
	if json.Unmarshal(m.Params, &env) != nil {
		return req
	}
	req.Name = env.Name
	if env.URI != "" {
		req.Name = env.URI
	}
	req.cursor, req.Arguments = env.Cursor, env.Arguments
	if len(env.Meta) > 0 && env.Meta[0] == '{' {
		req.Meta = env.Meta
		var meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		}
		if json.Unmarshal(env.Meta, &meta) == nil && len(meta.ProgressToken) > 0 && string(meta.ProgressToken) != "null" {
			req.ProgressToken = meta.ProgressToken
		}
	}
	return req
}
