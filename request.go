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

func newRequest(m *jsonrpc.Message, s *session) *Request {
	req := &Request{ID: m.ID, Method: m.Method}
	if s != nil {
		req.Version, req.SessionID, req.ClientInfo, req.ClientCapabilities = s.version, s.id, s.client, s.caps
	}
	if len(m.Params) == 0 || m.Params[0] != '{' {
		return req
	}
	var env struct {
		envelope
		Meta json.RawMessage `json:"_meta"`
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
