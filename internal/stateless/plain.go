package stateless

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/specter-mcp/specter/internal/jsonscan"
	"github.com/specter-mcp/specter/mcp"
)

// The params and _meta of nearly every 2026-07-28 request are plain: each
// member the transport reads sent once, under its exact name, with a
// value of the expected type. Those are read here in one scan, without
// reflection; anything else (a repeated or differently cased name, a
// value of another type) is left to encoding/json, whose result, error
// message included, is the reference.

// paramFields are the members of Params, in its order.
var paramFields = [...]string{"name", "uri", "arguments", "_meta", "inputResponses", "requestState", "taskId"}

// implementationFields are the string members of mcp.Implementation, in
// its order; icons are left to encoding/json.
var implementationFields = [...]string{"name", "title", "version", "description", "websiteUrl", "icons"}

// plainImplementation decodes a plain clientInfo; false leaves it to
// encoding/json.
func plainImplementation(v []byte, impl *mcp.Implementation) bool {
	return members(v, implementationFields[:], func(i int, v []byte) bool {
		var ok bool
		switch i {
		case 0:
			impl.Name, ok = plainString(v)
		case 1:
			impl.Title, ok = plainString(v)
		case 2:
			impl.Version, ok = plainString(v)
		case 3:
			impl.Description, ok = plainString(v)
		case 4:
			impl.WebsiteURL, ok = plainString(v)
		}
		return ok
	})
}

// metaFields are the members of mcp.RequestMeta, in its order.
var metaFields = [...]string{mcp.MetaProtocolVersion, mcp.MetaClientInfo, mcp.MetaClientCapabilities, mcp.MetaLogLevel, "progressToken"}

// field returns the index of key among names, or -1; ok is false when key
// matches a name only without regard to case, which encoding/json would
// take, and the plain path does not.
func field(names []string, key []byte) (i int, ok bool) {
	for i, n := range names {
		if n == string(key) {
			return i, true
		}
	}
	for _, n := range names {
		if strings.EqualFold(n, string(key)) {
			return -1, false
		}
	}
	return -1, true
}

// members walks the members of a plain object, calling f with the index
// of each known field; false if the object is not plain or f declines.
// The data is valid JSON: jsonrpc.Parse checked it.
func members(data []byte, names []string, f func(i int, v []byte) bool) bool {
	o, ok := jsonscan.Members(data)
	if !ok {
		return false
	}
	var seen uint32
	for {
		k, v, more := o.Next()
		if !more {
			return true
		}
		i, ok := field(names, k)
		switch {
		case !ok:
			return false
		case i < 0:
			continue
		case seen&(1<<i) != 0:
			return false
		}
		seen |= 1 << i
		if !f(i, v) {
			return false
		}
	}
}

// plainString decodes a JSON string value; false for any other value.
func plainString(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return jsonscan.String(v)
}

// readPlain decodes plain params; false leaves them to encoding/json.
func readPlain(data []byte, p *Params) bool {
	return members(data, paramFields[:], func(i int, v []byte) bool {
		var ok bool
		switch i {
		case 0:
			p.Name, ok = plainString(v)
		case 1:
			p.URI, ok = plainString(v)
		case 2:
			p.Arguments, ok = json.RawMessage(v), true
		case 3:
			p.Meta, ok = json.RawMessage(v), true
		case 4:
			p.InputResponses, ok = plainResponses(v)
		case 5:
			p.RequestState, ok = plainString(v)
		case 6:
			p.TaskID, ok = plainString(v)
		}
		return ok
	})
}

// plainResponses decodes an object of raw values, as encoding/json
// decodes a map: a repeated key keeps its last value.
func plainResponses(v []byte) (map[string]json.RawMessage, bool) {
	if string(v) == "null" {
		return nil, true
	}
	o, ok := jsonscan.Members(v)
	if !ok {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	for {
		k, val, more := o.Next()
		if !more {
			return m, true
		}
		m[string(k)] = json.RawMessage(val)
	}
}

// parseMetaPlain decodes a plain _meta that carries a protocol version
// and client capabilities; false leaves it to ParseMeta's full path.
func parseMetaPlain(raw []byte) (*mcp.RequestMeta, bool) {
	var meta mcp.RequestMeta
	var version, caps bool
	ok := members(raw, metaFields[:], func(i int, v []byte) bool {
		var ok bool
		switch i {
		case 0:
			meta.ProtocolVersion, ok = plainString(v)
			version = ok
		case 1:
			if ok = len(v) > 0 && v[0] == '{'; ok {
				meta.ClientInfo = new(mcp.Implementation)
				if ok = plainImplementation(v, meta.ClientInfo); !ok {
					*meta.ClientInfo = mcp.Implementation{}
					ok = json.Unmarshal(v, meta.ClientInfo) == nil
				}
			}
		case 2:
			if ok = len(v) > 0 && v[0] == '{'; ok {
				meta.ClientCapabilities = new(mcp.ClientCapabilities)
				ok = emptyObject(v) || json.Unmarshal(v, meta.ClientCapabilities) == nil
				caps = ok
			}
		case 3:
			var s string
			s, ok = plainString(v)
			meta.LogLevel = mcp.LoggingLevel(s)
		case 4:
			meta.ProgressToken, ok = json.RawMessage(v), true
		}
		return ok
	})
	return &meta, ok && version && caps
}

// emptyObject reports whether v is {} (with any white space inside).
func emptyObject(v []byte) bool {
	return len(v) >= 2 && v[0] == '{' && v[len(v)-1] == '}' && len(bytes.TrimSpace(v[1:len(v)-1])) == 0
}
