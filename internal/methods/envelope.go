package methods

// The envelope is the params members that any MCP request may carry and a
// handler sees on its Request: the name or URI, the cursor, the
// arguments, and _meta with its progress token.

import (
	"bytes"
	"encoding/json"

	"github.com/specter-mcp/specter/internal/jsonscan"
)

// Envelope holds the shared members of a request's params.
type Envelope struct {
	Name          string          // a tool or prompt name, or else the resource URI
	Cursor        string          // "" for the first page
	Arguments     json.RawMessage // as sent
	Meta          json.RawMessage // a JSON object, or nil
	ProgressToken json.RawMessage // _meta.progressToken as sent, or nil
	Task          json.RawMessage // a task-augmented request's task (2025-11-25), or nil
}

type envelopeMembers struct {
	Name      string          `json:"name"`
	URI       string          `json:"uri"`
	Cursor    string          `json:"cursor"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      json.RawMessage `json:"_meta"`
	Task      json.RawMessage `json:"task"`
}

// ReadEnvelope reads params; params that are no JSON object, or do not decode,
// read as empty. The progress token is read only with token set: the
// 2026-07-28 wire has parsed its _meta already (see Token).
func ReadEnvelope(params json.RawMessage, token bool) Envelope {
	if p, ok := readPlain(params, token); ok {
		return p
	}
	return decodeEnvelope(params, token)
}

// decodeEnvelope is ReadEnvelope through encoding/json, for params readPlain leaves.
func decodeEnvelope(params json.RawMessage, token bool) Envelope {
	var m envelopeMembers
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &m) != nil {
		return Envelope{}
	}
	p := Envelope{Name: m.Name, Cursor: m.Cursor, Arguments: m.Arguments, Task: Token(m.Task)}
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

// envelopeNames are the members ReadEnvelope looks at, and those it reads in _meta.
var (
	envelopeNames     = []string{"name", "uri", "cursor", "arguments", "_meta", "task"}
	envelopeMetaNames = []string{"progressToken"}
)

// readPlain is ReadEnvelope without reflection for params whose members are
// spelled exactly: a key that differs from one of names only in case, which
// encoding/json would match, is left to Read's decoder (ok false). params
// is valid JSON (it comes from a parsed message); what comes back aliases it.
func readPlain(params json.RawMessage, token bool) (p Envelope, ok bool) {
	if len(params) == 0 || params[0] != '{' {
		return Envelope{}, true
	}
	o, _ := jsonscan.Members(params)
	var uri string
	for {
		key, value, more := o.Next()
		if !more {
			break
		}
		var field *string
		switch string(key) {
		case "name":
			field = &p.Name
		case "uri":
			field = &uri
		case "cursor":
			field = &p.Cursor
		case "arguments":
			p.Arguments = value
			continue
		case "_meta":
			p.Meta = value
			continue
		case "task":
			p.Task = Token(value)
			continue
		default:
			if folds(key, envelopeNames) {
				return Envelope{}, false
			}
			continue
		}
		switch value[0] {
		case '"':
			s, _ := jsonscan.String(value)
			*field = s
		case 'n': // null leaves a string as it is
		default:
			return Envelope{}, true // a wrong type: the params do not decode
		}
	}
	if uri != "" {
		p.Name = uri
	}
	if len(p.Meta) == 0 || p.Meta[0] != '{' {
		p.Meta = nil
		return p, true
	}
	if token {
		m, _ := jsonscan.Members(p.Meta)
		for {
			key, value, more := m.Next()
			if !more {
				break
			}
			if string(key) == "progressToken" {
				p.ProgressToken = Token(value)
			} else if folds(key, envelopeMetaNames) {
				return Envelope{}, false
			}
		}
	}
	return p, true
}

// folds reports whether key matches one of names only under case folding,
// as encoding/json matches struct fields.
func folds(key []byte, names []string) bool {
	for _, n := range names {
		if len(key) <= 4*len(n) && len(n) <= 4*len(key) && bytes.EqualFold(key, []byte(n)) && string(key) != n {
			return true
		}
	}
	return false
}
