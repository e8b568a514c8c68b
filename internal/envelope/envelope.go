// Package envelope reads the params members that any MCP request may
// carry and a handler sees on its Request: the name or URI, the cursor,
// the arguments, and _meta with its progress token.
package envelope

import "encoding/json"

// Params are the shared members of a request's params.
type Params struct {
	Name          string          // a tool or prompt name, or else the resource URI
	Cursor        string          // "" for the first page
	Arguments     json.RawMessage // as sent
	Meta          json.RawMessage // a JSON object, or nil
	ProgressToken json.RawMessage // _meta.progressToken as sent, or nil
	Task          json.RawMessage // a task-augmented request's task (2025-11-25), or nil
}

type members struct {
	Name      string          `json:"name"`
	URI       string          `json:"uri"`
	Cursor    string          `json:"cursor"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      json.RawMessage `json:"_meta"`
	Task      json.RawMessage `json:"task"`
}

// Read reads params; params that are no JSON object, or do not decode,
// read as empty. The progress token is read only with token set: the
// 2026-07-28 wire has parsed its _meta already (see Token).
func Read(params json.RawMessage, token bool) Params {
	var m members
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &m) != nil {
		return Params{}
	}
	p := Params{Name: m.Name, Cursor: m.Cursor, Arguments: m.Arguments, Task: Token(m.Task)}
	if m.URI != "" {
		p.Name = m.URI
	}
	if len(m.Meta) == 0 || m.Meta[0] != '{' {
		return p
	}
	p.Meta = m.Meta
	if token {
		var meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		}
		_ = json.Unmarshal(m.Meta, &meta)
		p.ProgressToken = Token(meta.ProgressToken)
	}
	return p
}

// Token returns a progress token as sent, or nil for none or null.
func Token(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}
