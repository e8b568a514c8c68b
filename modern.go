package specter

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// HTTP headers of the 2026-07-28 Streamable HTTP transport.
const (
	HeaderMethod      = "Mcp-Method"
	HeaderName        = "Mcp-Name"
	HeaderParamPrefix = "Mcp-Param-"
)

// modernVersions are the revisions served statelessly, per request; the
// session-era ones are served through initialize instead.
var modernVersions = []string{mcp.Version20260728}

// isModern tells a 2026-07-28 request from a session-era one: no session
// header, and either modern _meta in the params or a protocol version
// header that names no session-era revision.
func isModern(h http.Header, msgs []*jsonrpc.Message) bool {
	if h.Get(HeaderSessionID) != "" {
		return false
	}
	if v := strings.TrimSpace(h.Get(HeaderProtocolVersion)); v != "" && !mcp.IsSessionVersion(v) {
		return true
	}
	for _, m := range msgs {
		if hasModernMeta(m.Params) {
			return true
		}
	}
	return false
}

func hasModernMeta(params json.RawMessage) bool {
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

// modernCall is the per-request state of a 2026-07-28 request: its
// metadata and the inputs of a multi round-trip request.
type modernCall struct {
	mu           sync.Mutex // handlers may ask for input from several goroutines
	meta         mcp.RequestMeta
	requestState string
	responses    map[string]json.RawMessage // this round's inputResponses
	answers      map[string]json.RawMessage // every answer so far, once opened
	pending      map[string]mcp.InputRequest
	counters     map[string]int
	inputAllowed bool
}

// modernParams is the part of a request's params the transport reads.
type modernParams struct {
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	Arguments      json.RawMessage            `json:"arguments"`
	Meta           json.RawMessage            `json:"_meta"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   string                     `json:"requestState"`
	TaskID         string                     `json:"taskId"`
}

func headerMismatch(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeHeaderMismatch, "Header mismatch: "+format, args...)
}

// serveModern serves a 2026-07-28 POST: validation in the order the
// revision prescribes, then connect, then dispatch on the request's own
// response stream.
func (r *Router) serveModern(w http.ResponseWriter, req *http.Request, msgs []*jsonrpc.Message, batch bool) {
	if batch {
		jsonrpc.WriteError(w, http.StatusBadRequest, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: protocol version %s takes one message per POST, not a batch", mcp.Version20260728))
		return
	}
	m := msgs[0]
	switch m.Kind() {
	case jsonrpc.KindNotification:
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
		jsonrpc.WriteError(w, http.StatusBadRequest, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: in protocol version %s clients send no responses; answer input requests by retrying the request", mcp.Version20260728))
		return
	}
	var p modernParams
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &p); err != nil {
			jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s", jsonrpc.DescribeParams(err)))
			return
		}
	}
	call, jerr := parseRequestMeta(p.Meta)
	if jerr != nil {
		jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, jerr)
		return
	}
	version := call.meta.ProtocolVersion
	if hv := headerValue(req.Header, HeaderProtocolVersion); hv != version {
		jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, headerMismatch("MCP-Protocol-Version %q does not match _meta %s %q", hv, mcp.MetaProtocolVersion, version))
		return
	}
	if version != mcp.Version20260728 {
		jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, jsonrpc.Errorf(jsonrpc.CodeUnsupportedVersion, "Unsupported protocol version %q", version).
			WithData(map[string]any{"supported": modernVersions, "requested": version}))
		return
	}
	if hv := headerValue(req.Header, HeaderMethod); hv != m.Method {
		jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, headerMismatch("Mcp-Method %q does not match the body's method %q", hv, m.Method))
		return
	}
	if name, named := nameOf(m.Method, &p); named {
		hv, ok := decodeHeader(headerValue(req.Header, HeaderName))
		if !ok || hv != name {
			jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, headerMismatch("Mcp-Name must carry %q", name))
			return
		}
	}
	c, ok := r.runConnect(w, req, m.ID)
	if !ok {
		return
	}
	if m.Method == handlers.MethodToolsCall {
		if jerr := r.checkParamHeaders(req.Header, c.scope, p.Name, p.Arguments); jerr != nil {
			jsonrpc.WriteError(w, http.StatusBadRequest, m.ID, jerr)
			return
		}
	}
	if m.Method == handlers.MethodSubscriptionsListen {
		r.serveListen(w, req, c, m)
		return
	}
	if isTaskMethod(m.Method) {
		r.serveTaskMethod(w, c, m, call, &p)
		return
	}
	if _, found := handlers.LookupModern(m.Method); !found {
		jsonrpc.WriteError(w, http.StatusNotFound, m.ID, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", m.Method))
		return
	}
	call.requestState, call.responses = p.RequestState, p.InputResponses
	call.inputAllowed = m.Method == handlers.MethodToolsCall || m.Method == handlers.MethodPromptsGet || m.Method == handlers.MethodResourcesRead

	ob := r.streams.New(stream.Options{Pending: 1})
	gen := ob.AttachPOST(w)
	r.dispatch(c, nil, ob, m, call)
	if ob.Await(w, req, gen, false) {
		ob.Drop()
	}
}

// parseRequestMeta checks the _meta every 2026-07-28 request carries.
func parseRequestMeta(raw json.RawMessage) (*modernCall, *jsonrpc.Error) {
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
	call := &modernCall{}
	if err := json.Unmarshal(raw, &call.meta); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: _meta: %s", jsonrpc.DescribeParams(err))
	}
	if l := call.meta.LogLevel; l != "" && l.Severity() < 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown %s %q", mcp.MetaLogLevel, l)
	}
	return call, nil
}

// nameOf returns what Mcp-Name must carry for method.
func nameOf(method string, p *modernParams) (string, bool) {
	switch method {
	case handlers.MethodToolsCall, handlers.MethodPromptsGet:
		return p.Name, true
	case handlers.MethodResourcesRead:
		return p.URI, true
	}
	if isTaskMethod(method) {
		return p.TaskID, true
	}
	return "", false
}

// headerValue returns a header with the optional whitespace around field
// values removed, as RFC 9110 §5.5 asks.
func headerValue(h http.Header, name string) string {
	return strings.Trim(h.Get(name), " \t")
}

// decodeHeader decodes a header value in the "=?base64?…?=" form MCP uses
// for values that are not plain ASCII; other values are taken literally.
// The Base64 must be standard and padded.
func decodeHeader(v string) (string, bool) {
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

// checkParamHeaders verifies the Mcp-Param-* headers of a tool whose
// params are mirrored into headers (x-mcp-header): each present value
// must be sent, and match.
func (r *Router) checkParamHeaders(h http.Header, sc *scope, tool string, args json.RawMessage) *jsonrpc.Error {
	d := r.catalog.Load().byTool[tool]
	if d == nil || len(d.headers) == 0 || !sc.allowsTool(tool) {
		return nil
	}
	var vals map[string]json.RawMessage
	if len(args) > 0 && json.Unmarshal(args, &vals) != nil {
		return nil // the arguments' own validation reports this
	}
	for _, hp := range d.headers {
		v, ok := vals[hp.param]
		if !ok || string(v) == "null" {
			continue
		}
		raw, present := h[http.CanonicalHeaderKey(HeaderParamPrefix+hp.header)]
		if !present || len(raw) != 1 {
			return headerMismatch("%s%s is required: the body carries %q", HeaderParamPrefix, hp.header, hp.param)
		}
		got, ok := decodeHeader(strings.Trim(raw[0], " \t"))
		if !ok || !sameValue(v, got) {
			return headerMismatch("%s%s does not match the body's %q", HeaderParamPrefix, hp.header, hp.param)
		}
	}
	return nil
}

// sameValue compares a JSON body value with its header form: strings as
// they are, numbers numerically, booleans as true/false.
func sameValue(body json.RawMessage, header string) bool {
	switch {
	case len(body) > 0 && body[0] == '"':
		var s string
		return json.Unmarshal(body, &s) == nil && s == header
	case string(body) == "true" || string(body) == "false":
		return string(body) == header
	}
	a, err1 := strconv.ParseFloat(string(body), 64)
	b, err2 := strconv.ParseFloat(header, 64)
	return err1 == nil && err2 == nil && a == b
}

// modernStatus is the HTTP status of a plain JSON error answer on the
// 2026-07-28 wire.
func modernStatus(code int) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case CodeForbidden:
		return http.StatusForbidden
	case jsonrpc.CodeInvalidParams, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMissingCapability,
		jsonrpc.CodeHeaderMismatch, jsonrpc.CodeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
