package client

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/specter-mcp/specter/mcp"
)

// messageHeader returns the HTTP headers of a message in a protocol
// version: MCP-Protocol-Version once one is agreed (every request but
// initialize), and on 2026-07-28 Mcp-Method and Mcp-Name.
func messageHeader(version, method string, params map[string]json.RawMessage) http.Header {
	h := http.Header{}
	if method == mcp.MethodInitialize || version == "" {
		return h
	}
	h.Set("MCP-Protocol-Version", version)
	if mcp.IsSessionVersion(version) || method == "" {
		return h
	}
	h.Set("Mcp-Method", method)
	var name string
	switch method {
	case mcp.MethodToolsCall, mcp.MethodPromptsGet:
		_ = json.Unmarshal(params["name"], &name)
	case mcp.MethodResourcesRead:
		_ = json.Unmarshal(params["uri"], &name)
	case mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksCancel:
		_ = json.Unmarshal(params["taskId"], &name)
	}
	if name != "" {
		h.Set("Mcp-Name", encodeHeaderValue(name))
	}
	return h
}

// paramHeaders are the Mcp-Param-* headers a tool's input schema asks
// for with x-mcp-header: each names a header and the chain of properties
// whose value it mirrors.
type paramHeaders []paramHeader

type paramHeader struct {
	name string
	path []string
}

// maxSafeInteger bounds integers mirrored into headers (JavaScript's
// safe range, as the specification requires).
const maxSafeInteger = 1<<53 - 1

// toolHeaders reads and checks a tool's x-mcp-header annotations. A tool
// with an invalid one must not be used, so the error says why.
func toolHeaders(schema json.RawMessage) (paramHeaders, error) {
	if len(schema) == 0 || !bytes.Contains(schema, []byte(`"x-mcp-header"`)) {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var out paramHeaders
	seen := map[string]bool{}
	var walk func(node map[string]any, path []string) error
	walk = func(node map[string]any, path []string) error {
		props, _ := node["properties"].(map[string]any)
		for key, v := range props {
			prop, ok := v.(map[string]any)
			if !ok {
				continue
			}
			p := append(path[:len(path):len(path)], key)
			if raw, ok := prop["x-mcp-header"]; ok {
				name, ok := raw.(string)
				if !ok || name == "" {
					return fmt.Errorf("property %s: x-mcp-header must be a non-empty string", strings.Join(p, "."))
				}
				if !isToken(name) {
					return fmt.Errorf("property %s: x-mcp-header %q is not an HTTP field-name token", strings.Join(p, "."), name)
				}
				if seen[strings.ToLower(name)] {
					return fmt.Errorf("x-mcp-header %q is used twice", name)
				}
				seen[strings.ToLower(name)] = true
				switch t, _ := prop["type"].(string); t {
				case "string", "integer", "boolean":
				default:
					return fmt.Errorf("property %s: x-mcp-header needs a string, integer or boolean, not %q", strings.Join(p, "."), t)
				}
				out = append(out, paramHeader{name: name, path: p})
			}
			if err := walk(prop, p); err != nil {
				return err
			}
		}
		return nil
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, errors.New("input schema is not an object")
	}
	if err := walk(obj, nil); err != nil {
		return nil, err
	}
	if n := countAnnotations(root); n != len(out) {
		return nil, errors.New("x-mcp-header is only allowed on properties reached through properties alone")
	}
	return out, nil
}

// countAnnotations counts x-mcp-header keys anywhere in a schema.
func countAnnotations(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "x-mcp-header" {
				n++
			}
			n += countAnnotations(e)
		}
	case []any:
		for _, e := range v {
			n += countAnnotations(e)
		}
	}
	return n
}

// isToken reports whether s is an HTTP field-name token (RFC 9110 tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0:
		default:
			return false
		}
	}
	return s != ""
}

// apply sets the headers for the arguments of one call. A value that is
// absent or null sends no header.
func (ph paramHeaders) apply(h http.Header, args json.RawMessage) {
	if len(ph) == 0 || len(args) == 0 {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var root any
	if dec.Decode(&root) != nil {
		return
	}
	for _, p := range ph {
		v := root
		for _, key := range p.path {
			obj, _ := v.(map[string]any)
			v = obj[key]
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case bool:
			s = "false"
			if v {
				s = "true"
			}
		case json.Number:
			n, err := v.Int64()
			if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
				continue
			}
			s = v.String()
		default:
			continue
		}
		h.Set("Mcp-Param-"+p.name, encodeHeaderValue(s))
	}
}

// encodeHeaderValue returns s as an HTTP header value: as is when it is
// plain visible ASCII without surrounding spaces, else Base64 between the
// =?base64? and ?= markers.
func encodeHeaderValue(s string) string {
	plain := !strings.HasPrefix(s, "=?base64?") || !strings.HasSuffix(s, "?=")
	for i := 0; plain && i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			plain = false
		}
	}
	if plain && s != "" && (s[0] == ' ' || s[len(s)-1] == ' ') {
		plain = false
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}
