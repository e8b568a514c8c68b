// Package stateless holds the machinery of the stateless 2026-07-28 wire:
// telling its requests from session-era ones, checking the _meta and the
// HTTP headers that mirror the body, the per-request state of a multi
// round-trip request (MRTR) and its sealed requestState, and what the
// revision adds to results.
package stateless

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// HTTP headers of the 2026-07-28 Streamable HTTP transport.
const (
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

// Versions are the revisions served statelessly, per request; the
// session-era ones are served through initialize instead.
var Versions = []string{mcp.Version20260728}

// Is tells a 2026-07-28 request from a session-era one by its session and
// protocol version headers and its messages: no session, and either a
// version header that names no session-era revision or a message whose
// params carry the revision's _meta.
func Is(sessionID, protocolVersion string, msgs []*jsonrpc.Message) bool {
	if sessionID != "" {
		return false
	}
	if v := strings.TrimSpace(protocolVersion); v != "" && !mcp.IsSessionVersion(v) {
		return true
	}
	for _, m := range msgs {
		if hasMeta(m.Params) {
			return true
		}
	}
	return false
}

func hasMeta(params json.RawMessage) bool {
	if !bytes.Contains(params, []byte(`"io.modelcontextprotocol/`)) {
		return false // the common case costs no decoding
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, v := p.Meta[mcp.MetaProtocolVersion]
	_, c := p.Meta[mcp.MetaClientCapabilities]
	return v || c
}

// ParseMeta checks the _meta every 2026-07-28 request carries (a
// protocol version string and a client capabilities object, and a known
// log level if any) and decodes it. It fails with -32602.
func ParseMeta(raw json.RawMessage) (*mcp.RequestMeta, *jsonrpc.Error) {
	if meta, ok := parseMetaPlain(raw); ok && (meta.LogLevel == "" || meta.LogLevel.Severity() >= 0) {
		return meta, nil
	}
	return parseMetaJSON(raw)
}

// parseMetaJSON is ParseMeta through encoding/json, for any _meta.
func parseMetaJSON(raw json.RawMessage) (*mcp.RequestMeta, *jsonrpc.Error) {
	missing := jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: _meta must carry %s and %s", mcp.MetaProtocolVersion, mcp.MetaClientCapabilities)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, missing
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
		return nil, missing
	}
	v, caps := keys[mcp.MetaProtocolVersion], keys[mcp.MetaClientCapabilities]
	if len(v) == 0 || v[0] != '"' || len(caps) == 0 || caps[0] != '{' {
		return nil, missing
	}
	var meta mcp.RequestMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: _meta: %s", jsonrpc.DescribeParams(err))
	}
	if l := meta.LogLevel; l != "" && l.Severity() < 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown %s %q", mcp.MetaLogLevel, l)
	}
	return &meta, nil
}

// Mismatch is the -32020 error of a header that does not match the body,
// or is missing or malformed.
func Mismatch(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeHeaderMismatch, "Header mismatch: "+format, args...)
}

// CheckVersion checks the protocol version of a request whose _meta
// names version: the header must carry it (-32020) unless h is nil (no
// HTTP headers), and it must be one this package serves (-32022, with the
// supported versions as data).
func CheckVersion(h http.Header, version string) *jsonrpc.Error {
	if hv, ok := single(h, HeaderProtocolVersion); h != nil && (!ok || hv != version) {
		return Mismatch("MCP-Protocol-Version %q does not match _meta %s %q", hv, mcp.MetaProtocolVersion, version)
	}
	if version != mcp.Version20260728 {
		return jsonrpc.Errorf(jsonrpc.CodeUnsupportedVersion, "Unsupported protocol version %q", version).
			WithData(map[string]any{"supported": Versions, "requested": version})
	}
	return nil
}

// CheckRoute checks the headers an intermediary routes on: Mcp-Method
// must carry the body's method and, when named, Mcp-Name the body's name
// or URI (Base64-decoded when sent in the "=?base64?…?=" form). Each must
// be sent once: a gateway that reads another copy than this server would
// route one request and have another run.
func CheckRoute(h http.Header, method, name string, named bool) *jsonrpc.Error {
	if hv, ok := single(h, HeaderMethod); !ok || hv != method {
		return Mismatch("Mcp-Method %q does not match the body's method %q", hv, method)
	}
	if !named {
		return nil
	}
	raw, ok := single(h, HeaderName)
	if hv, decoded := DecodeHeader(raw); !ok || !decoded || hv != name {
		return Mismatch("Mcp-Name must carry %q", name)
	}
	return nil
}

// single returns a header sent at most once, with the optional whitespace
// around field values removed (RFC 9110 §5.5); ok is false when it was
// sent more than once.
func single(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	switch len(vs) {
	case 0:
		return "", true
	case 1:
		return strings.Trim(vs[0], " \t"), true
	}
	return strings.Trim(vs[0], " \t"), false
}

// DecodeHeader decodes a header value in the "=?base64?…?=" form MCP uses
// for values that are not plain ASCII; other values are taken literally.
// The Base64 must be standard and padded. It fails for a value with
// control or non-ASCII characters, and for bad Base64.
func DecodeHeader(v string) (string, bool) {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return "", false
		}
	}
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len("=?base64?") : len(v)-len("?=")])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// ParamHeader is a tool param mirrored into an Mcp-Param-* header (the
// x-mcp-header of its input schema).
type ParamHeader struct{ Param, Header string }

// CheckParams verifies the Mcp-Param-* headers of a tools/call whose
// params are mirrored into headers: each param present in args (and not
// null) needs its header, sent once, matching it. Arguments that do not
// decode pass: their own validation reports them.
func CheckParams(h http.Header, params []ParamHeader, args json.RawMessage) *jsonrpc.Error {
	var vals map[string]json.RawMessage
	if len(args) > 0 && json.Unmarshal(args, &vals) != nil {
		return nil
	}
	for _, p := range params {
		v, ok := vals[p.Param]
		if !ok || string(v) == "null" {
			continue
		}
		raw := h.Values(HeaderParamPrefix + p.Header)
		if len(raw) != 1 {
			return Mismatch("%s%s is required: the body carries %q", HeaderParamPrefix, p.Header, p.Param)
		}
		got, ok := DecodeHeader(strings.Trim(raw[0], " \t"))
		if !ok || !sameValue(v, got) {
			return Mismatch("%s%s does not match the body's %q", HeaderParamPrefix, p.Header, p.Param)
		}
	}
	return nil
}

// sameValue compares a JSON body value with its header form: strings as
// they are, booleans as true/false, and numbers exactly, by value ("42.0"
// is "42", but no two distinct numbers are equal, however large).
func sameValue(body json.RawMessage, header string) bool {
	switch {
	case len(body) > 0 && body[0] == '"':
		var s string
		return json.Unmarshal(body, &s) == nil && s == header
	case string(body) == "true" || string(body) == "false":
		return string(body) == header
	}
	a, ok1 := parseDecimal(string(body))
	b, ok2 := parseDecimal(header)
	return ok1 && ok2 && a == b
}

// Status is the HTTP status of a plain JSON error answer on the
// 2026-07-28 wire.
func Status(code int) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeForbidden:
		return http.StatusForbidden
	case jsonrpc.CodeInvalidParams, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMissingCapability,
		jsonrpc.CodeHeaderMismatch, jsonrpc.CodeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
