package integration

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// TestStatelessValidationOrder walks FIXTURE §3.2: each probe breaks one rule,
// sometimes two, and the first broken rule in the revision's order decides
// the answer.
func TestStatelessValidationOrder(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	var disc mcp.DiscoverResult
	complete(t, call(t, c, "server/discover", nil), &disc)

	tests := []struct {
		name   string
		method string
		params map[string]any
		alter  func(r *mcptest.StatelessRequest)
		status int
		code   int
	}{
		// 1: _meta
		{"no params at all", "server/discover", nil, func(r *mcptest.StatelessRequest) { r.Params = nil }, 400, jsonrpc.CodeInvalidParams},
		{"params without _meta", "server/discover", nil, func(r *mcptest.StatelessRequest) { delete(r.Params, "_meta") }, 400, jsonrpc.CodeInvalidParams},
		{"_meta not an object", "server/discover", nil, func(r *mcptest.StatelessRequest) { r.Params["_meta"] = "2026-07-28" }, 400, jsonrpc.CodeInvalidParams},
		{"no protocolVersion", "server/discover", nil, func(r *mcptest.StatelessRequest) { delete(r.Meta(), mcp.MetaProtocolVersion) }, 400, jsonrpc.CodeInvalidParams},
		{"protocolVersion not a string", "server/discover", nil, func(r *mcptest.StatelessRequest) { r.Meta()[mcp.MetaProtocolVersion] = 20260728 }, 400, jsonrpc.CodeInvalidParams},
		{"no clientCapabilities", "server/discover", nil, func(r *mcptest.StatelessRequest) { delete(r.Meta(), mcp.MetaClientCapabilities) }, 400, jsonrpc.CodeInvalidParams},
		{"clientCapabilities null", "server/discover", nil, func(r *mcptest.StatelessRequest) { r.Meta()[mcp.MetaClientCapabilities] = nil }, 400, jsonrpc.CodeInvalidParams},
		{"unknown logLevel", "server/discover", nil, func(r *mcptest.StatelessRequest) { r.Meta()[mcp.MetaLogLevel] = "verbose" }, 400, jsonrpc.CodeInvalidParams},
		{"no _meta beats an unsupported header", "server/discover", nil, func(r *mcptest.StatelessRequest) {
			delete(r.Params, "_meta")
			r.Header.Set("MCP-Protocol-Version", "v999.0.0")
		}, 400, jsonrpc.CodeInvalidParams},
		// 2: MCP-Protocol-Version against _meta
		{"version header missing", "server/discover", nil, func(r *mcptest.StatelessRequest) { r.Header.Del("MCP-Protocol-Version") }, 400, jsonrpc.CodeHeaderMismatch},
		{"version header differs", "server/discover", nil, func(r *mcptest.StatelessRequest) { r.Meta()[mcp.MetaProtocolVersion] = "v999.0.0" }, 400, jsonrpc.CodeHeaderMismatch},
		{"session-era header, stateless _meta", "tools/list", nil, func(r *mcptest.StatelessRequest) { r.Header.Set("MCP-Protocol-Version", "2025-11-25") }, 400, jsonrpc.CodeHeaderMismatch},
		// 3: unsupported version
		{"mismatch beats an unsupported version", "server/discover", nil, func(r *mcptest.StatelessRequest) {
			r.Header.Set("MCP-Protocol-Version", "v999.0.0")
			r.Meta()[mcp.MetaProtocolVersion] = "v998.0.0"
		}, 400, jsonrpc.CodeHeaderMismatch},
		{"unsupported beats Mcp-Method", "tools/list", nil, func(r *mcptest.StatelessRequest) {
			r.Header.Set("MCP-Protocol-Version", "v999.0.0")
			r.Meta()[mcp.MetaProtocolVersion] = "v999.0.0"
			r.Header.Set("Mcp-Method", "prompts/list")
		}, 400, jsonrpc.CodeUnsupportedVersion},
		// 4: Mcp-Method
		{"Mcp-Method missing", "tools/list", nil, func(r *mcptest.StatelessRequest) { r.Header.Del("Mcp-Method") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Method differs", "tools/list", nil, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Method", "prompts/list") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Method in capitals", "tools/list", nil, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Method", "TOOLS/LIST") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Method beats a removed method", "ping", nil, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Method", "tools/list") }, 400, jsonrpc.CodeHeaderMismatch},
		// 5: Mcp-Name
		{"Mcp-Method twice", "tools/list", nil, func(r *mcptest.StatelessRequest) { r.Header.Add("Mcp-Method", "tools/call") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Method twice, same", "tools/list", nil, func(r *mcptest.StatelessRequest) { r.Header.Add("Mcp-Method", "tools/list") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name twice", "tools/call", map[string]any{"name": "test_simple_text"}, func(r *mcptest.StatelessRequest) { r.Header.Add("Mcp-Name", "test_error_handling") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name missing", "tools/call", map[string]any{"name": "test_simple_text"}, func(r *mcptest.StatelessRequest) { r.Header.Del("Mcp-Name") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name differs", "tools/call", map[string]any{"name": "test_simple_text"}, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "test_error_handling") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name in capitals", "tools/call", map[string]any{"name": "test_simple_text"}, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "TEST_SIMPLE_TEXT") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name beats an unknown tool", "tools/call", map[string]any{"name": "no_such_tool"}, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "other") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name of a prompt", "prompts/get", map[string]any{"name": "test_simple_prompt"}, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "test_prompt_with_image") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name of a resource", "resources/read", map[string]any{"uri": "test://static-text"}, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "test://static-binary") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name bad padding", "tools/call", map[string]any{"name": "Hello"}, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "=?base64?SGVsbG8?=") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name bad characters", "tools/call", map[string]any{"name": "Hello"}, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "=?base64?SGVs!!!bG8=?=") }, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name URL alphabet", "resources/read", map[string]any{"uri": "test://template/??>/data"}, func(r *mcptest.StatelessRequest) {
			r.Header.Set("Mcp-Name", "=?base64?"+base64.URLEncoding.EncodeToString([]byte("test://template/??>/data"))+"?=")
		}, 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name raw UTF-8", "resources/read", map[string]any{"uri": "test://template/é/data"}, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "test://template/é/data") }, 400, jsonrpc.CodeHeaderMismatch},
		// 7: removed and unknown methods
		{"initialize", "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}}, nil, 404, jsonrpc.CodeMethodNotFound},
		{"ping", "ping", nil, nil, 404, jsonrpc.CodeMethodNotFound},
		{"logging/setLevel", "logging/setLevel", map[string]any{"level": "debug"}, nil, 404, jsonrpc.CodeMethodNotFound},
		{"resources/subscribe", "resources/subscribe", map[string]any{"uri": "test://watched-resource"}, nil, 404, jsonrpc.CodeMethodNotFound},
		{"resources/unsubscribe", "resources/unsubscribe", map[string]any{"uri": "test://watched-resource"}, nil, 404, jsonrpc.CodeMethodNotFound},
		{"tasks/list", "tasks/list", nil, nil, 404, jsonrpc.CodeMethodNotFound},
		{"unknown/method", "unknown/method", nil, nil, 404, jsonrpc.CodeMethodNotFound},
		// 8: capabilities
		{"missing capability", "tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, func(r *mcptest.StatelessRequest) {
			r.Meta()[mcp.MetaClientCapabilities] = map[string]any{}
		}, 400, jsonrpc.CodeMissingCapability},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Request(tt.method, tt.params)
			if i%2 == 0 { // string ids too must be echoed as sent
				r.ID = jsonrpc.StringID("probe-" + tt.name)
			}
			if tt.alter != nil {
				tt.alter(r)
			}
			je := wantError(t, send(t, c, r), r.ID, tt.status, tt.code)
			switch tt.code {
			case jsonrpc.CodeMissingCapability:
				var data struct {
					RequiredCapabilities map[string]any `json:"requiredCapabilities"`
				}
				if b, _ := json.Marshal(je.Data); json.Unmarshal(b, &data) != nil || mustJSON(data.RequiredCapabilities) != `{"sampling":{}}` {
					t.Errorf("data %v, want requiredCapabilities {sampling:{}}", je.Data)
				}
			case jsonrpc.CodeUnsupportedVersion:
				checkUnsupported(t, je, "v999.0.0", disc.SupportedVersions)
			}
		})
	}
}

func TestStatelessNullParams(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	r := c.Request("server/discover", nil)
	body := []byte(`{"jsonrpc":"2.0","id":9,"method":"server/discover","params":null}`)
	resp, err := c.PostRaw(ctx(t), body, r.Header, jsonrpc.IntID(9), r.Method)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, resp, jsonrpc.IntID(9), 400, jsonrpc.CodeInvalidParams)
}

// checkUnsupported checks the data of a -32022 error.
func checkUnsupported(t *testing.T, je *jsonrpc.Error, requested string, served []string) {
	t.Helper()
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	b, _ := json.Marshal(je.Data)
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatalf("data %s: %v", b, err)
	}
	if data.Requested != requested {
		t.Errorf("data.requested %q, want %q as sent", data.Requested, requested)
	}
	if len(data.Supported) == 0 {
		t.Error("data.supported is empty")
	}
	for _, v := range data.Supported {
		if !slices.Contains(served, v) {
			t.Errorf("data.supported lists %q, which server/discover (%v) does not", v, served)
		}
	}
}

func TestStatelessUnsupportedVersion(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	var disc mcp.DiscoverResult
	complete(t, call(t, c, "server/discover", nil), &disc)
	// 2025-11-25 is served, but only through initialize: a stateless
	// request claiming it is refused like any other revision.
	for _, v := range []string{"v999.0.0", "2025-11-25", "2024-11-05", "2026-07-29"} {
		vc := e.stateless()
		vc.Version = v
		r := vc.Request("server/discover", nil)
		checkUnsupported(t, wantError(t, send(t, vc, r), r.ID, 400, jsonrpc.CodeUnsupportedVersion), v, disc.SupportedVersions)
	}
}

func TestStatelessHeadersToleratedVariants(t *testing.T) {
	r := fixture.New(quiet)
	r.Prompt("=?base64?SGVsbG8=", promptEcho, specter.Description("a name that looks half like the sentinel"))
	r.Prompt("SGVsbG8=?=", promptEcho, specter.Description("a name ending like the sentinel"))
	r.Prompt("Hello", promptEcho, specter.Description("a plain name"))
	r.Prompt("=?base64?SGVsbG8=?=", promptEcho, specter.Description("a name that is a whole sentinel"))
	r.Prompt("héllo wörld", promptEcho, specter.Description("a name that is not ASCII"))
	r.Resource("test://café/menü", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("soup")
	}, specter.Description("a URI that is not ASCII"))
	e := newEnv(t, r)
	c := e.stateless()
	tests := []struct {
		name   string
		method string
		params map[string]any
		alter  func(r *mcptest.StatelessRequest)
	}{
		{"whitespace around values", "tools/call", map[string]any{"name": "test_simple_text"}, func(r *mcptest.StatelessRequest) {
			r.Header.Set("MCP-Protocol-Version", " 2026-07-28\t")
			r.Header.Set("Mcp-Method", "  tools/call ")
			r.Header.Set("Mcp-Name", "\ttest_simple_text  ")
		}},
		{"lowercase names", "tools/call", map[string]any{"name": "test_simple_text"}, func(r *mcptest.StatelessRequest) {
			for _, h := range []string{"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"} {
				v := r.Header.Get(h)
				r.Header.Del(h)
				r.Header[toLower(h)] = []string{v}
			}
		}},
		{"uppercase names", "tools/call", map[string]any{"name": "test_simple_text"}, func(r *mcptest.StatelessRequest) {
			for _, h := range []string{"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"} {
				v := r.Header.Get(h)
				r.Header.Del(h)
				r.Header[toUpper(h)] = []string{v}
			}
		}},
		{"Mcp-Name base64 of a plain name", "prompts/get", map[string]any{"name": "Hello"}, func(r *mcptest.StatelessRequest) {
			r.Header.Set("Mcp-Name", "=?base64?SGVsbG8=?=")
		}},
		{"Mcp-Name without suffix is literal", "prompts/get", map[string]any{"name": "=?base64?SGVsbG8="}, nil},
		{"Mcp-Name without prefix is literal", "prompts/get", map[string]any{"name": "SGVsbG8=?="}, nil},
		{"Mcp-Name of a sentinel-looking name, encoded", "prompts/get", map[string]any{"name": "=?base64?SGVsbG8=?="}, nil},
		{"Mcp-Name not ASCII, encoded", "prompts/get", map[string]any{"name": "héllo wörld"}, nil},
		{"Mcp-Name of a URI, encoded", "resources/read", map[string]any{"uri": "test://café/menü"}, nil},
		{"Mcp-Name on a method that names nothing", "tools/list", nil, func(r *mcptest.StatelessRequest) { r.Header.Set("Mcp-Name", "whatever") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Request(tt.method, tt.params)
			if tt.alter != nil {
				tt.alter(r)
			}
			complete(t, send(t, c, r), nil)
		})
	}
	// A whole sentinel sent literally is decoded, so it names "Hello".
	req := c.Request("prompts/get", map[string]any{"name": "=?base64?SGVsbG8=?="})
	req.Header.Set("Mcp-Name", "=?base64?SGVsbG8=?=")
	wantError(t, send(t, c, req), req.ID, 400, jsonrpc.CodeHeaderMismatch)
}

func promptEcho(_ specter.Params, req *specter.Request, _ *specter.Context) specter.Result {
	return specter.Reply("prompt " + req.Name)
}

func toLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func toUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}

// TestStatelessParamHeaders is FIXTURE §3.6.3, every row, on the fixture's
// test_x_mcp_header, and the same rules for numbers and booleans.
func TestStatelessParamHeaders(t *testing.T) {
	r := fixture.New(quiet)
	r.Tool("typed_headers", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("ok")
	}, specter.Description("Params of every type mirrored into headers"),
		params.Integer("count", params.Header("Count"), params.Description("a number")),
		params.Boolean("dry", params.Header("Dry"), params.Description("a flag")))
	e := newEnv(t, r)
	c := e.stateless()
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		headers map[string][]string // Mcp-Param-* values; absent means not sent
		ok      bool
		want    string // text of a successful call
	}{
		{"base64", "test_x_mcp_header", map[string]any{"region": "Hello"}, map[string][]string{"Region": {"=?base64?SGVsbG8=?="}}, true, "region=Hello"},
		{"bad padding", "test_x_mcp_header", map[string]any{"region": "Hello"}, map[string][]string{"Region": {"=?base64?SGVsbG8?="}}, false, ""},
		{"bad characters", "test_x_mcp_header", map[string]any{"region": "Hello"}, map[string][]string{"Region": {"=?base64?SGVs!!!bG8=?="}}, false, ""},
		{"no sentinel is literal", "test_x_mcp_header", map[string]any{"region": "SGVsbG8="}, map[string][]string{"Region": {"SGVsbG8="}}, true, "region=SGVsbG8="},
		{"no suffix is literal", "test_x_mcp_header", map[string]any{"region": "=?base64?SGVsbG8="}, map[string][]string{"Region": {"=?base64?SGVsbG8="}}, true, "region==?base64?SGVsbG8="},
		{"header absent", "test_x_mcp_header", map[string]any{"region": "test-value"}, nil, false, ""},
		{"plain match", "test_x_mcp_header", map[string]any{"region": "eu-west-1", "level": 3}, map[string][]string{"Region": {"eu-west-1"}}, true, "region=eu-west-1"},
		{"plain mismatch", "test_x_mcp_header", map[string]any{"region": "eu-west-1"}, map[string][]string{"Region": {"us-east-1"}}, false, ""},
		{"case differs", "test_x_mcp_header", map[string]any{"region": "Hello"}, map[string][]string{"Region": {"hello"}}, false, ""},
		{"not ASCII, encoded", "test_x_mcp_header", map[string]any{"region": "Zürich"}, map[string][]string{"Region": {mcptest.EncodeHeaderValue("Zürich")}}, true, "region=Zürich"},
		{"not ASCII, raw", "test_x_mcp_header", map[string]any{"region": "Zürich"}, map[string][]string{"Region": {"Zürich"}}, false, ""},
		{"sent twice", "test_x_mcp_header", map[string]any{"region": "eu"}, map[string][]string{"Region": {"eu", "eu"}}, false, ""},
		{"no body value, no header", "test_x_mcp_header", map[string]any{"level": 1}, nil, true, "region="},
		{"no arguments, no header", "test_x_mcp_header", nil, nil, true, "region="},
		{"lowercase header name", "test_x_mcp_header", map[string]any{"region": "eu"}, map[string][]string{"region-lower": {"eu"}}, true, "region=eu"},
		{"number", "typed_headers", map[string]any{"count": 42}, map[string][]string{"Count": {"42"}}, true, "ok"},
		{"number numerically", "typed_headers", map[string]any{"count": 42}, map[string][]string{"Count": {"42.0"}}, true, "ok"},
		{"number beyond 2^53", "typed_headers", map[string]any{"count": json.Number("9007199254740993")}, map[string][]string{"Count": {"9007199254740992"}}, false, ""},
		{"number mismatch", "typed_headers", map[string]any{"count": 42}, map[string][]string{"Count": {"43"}}, false, ""},
		{"number not a number", "typed_headers", map[string]any{"count": 42}, map[string][]string{"Count": {"forty-two"}}, false, ""},
		{"boolean", "typed_headers", map[string]any{"dry": true}, map[string][]string{"Dry": {"true"}}, true, "ok"},
		{"boolean capitalized", "typed_headers", map[string]any{"dry": true}, map[string][]string{"Dry": {"True"}}, false, ""},
		{"boolean false", "typed_headers", map[string]any{"dry": false, "count": 0}, map[string][]string{"Dry": {"false"}, "Count": {"0"}}, true, "ok"},
		{"one of two missing", "typed_headers", map[string]any{"dry": false, "count": 0}, map[string][]string{"Dry": {"false"}}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := map[string]any{"name": tt.tool}
			if tt.args != nil {
				p["arguments"] = tt.args
			}
			r := c.Request("tools/call", p)
			for h, vs := range tt.headers {
				if h == "region-lower" {
					r.Header["mcp-param-region"] = vs
					continue
				}
				r.Header[http.CanonicalHeaderKey(specter.HeaderParamPrefix+h)] = vs
			}
			resp := send(t, c, r)
			if !tt.ok {
				wantError(t, resp, r.ID, 400, jsonrpc.CodeHeaderMismatch)
				return
			}
			if got := toolText(t, resp); got != tt.want {
				t.Errorf("text %q, want %q", got, tt.want)
			}
		})
	}
}

// TestStatelessNonRequests covers bodies that carry no single request.
func TestStatelessNonRequests(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	header := c.Request("tools/list", nil).Header
	one, err := c.Request("tools/list", nil).Body()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		body   string
		header http.Header
		status int
		code   int
	}{
		{"batch", "[" + string(one) + "," + string(one) + "]", header, 400, jsonrpc.CodeInvalidRequest},
		{"batch of one", "[" + string(one) + "]", header, 400, jsonrpc.CodeInvalidRequest},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","action":"accept"}}`, header, 400, jsonrpc.CodeInvalidRequest},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"declined"}}`, header, 400, jsonrpc.CodeInvalidRequest},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":` + mustJSON(c.Meta()) + `}}`, header, 202, 0},
		{"notification, header only", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}, 202, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.PostRaw(ctx(t), []byte(tt.body), tt.header, nil, "")
			if tt.status == http.StatusAccepted {
				if err != nil || resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
					t.Errorf("HTTP %d body %q err %v, want 202 and no body", resp.Status, resp.Body, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantError(t, resp, nil, tt.status, tt.code)
		})
	}
}
