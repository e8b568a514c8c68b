package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/specter-mcp/specter/integration/internal/wire"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// statelessResultDefs names the 2026-07-28 schema definition of each method's
// complete result.
var statelessResultDefs = map[string]string{
	"server/discover":          "DiscoverResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"completion/complete":      "CompleteResult",
	"subscriptions/listen":     "SubscriptionsListenResult",
	// The skills extension has no definitions in the schema: its results
	// are checked for what they share with the base protocol, and
	// skills_test.go checks the rest.
	"skills/list":              "CacheableResult",
	"skills/get":               "CacheableResult",
	"resources/directory/read": "Result",
}

// inputMethods may answer input_required (multi round-trip requests).
var inputMethods = []string{"tools/call", "prompts/get", "resources/read"}

// reporter is the part of testing.TB the checker uses, so that its own
// test can watch it fail.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// statelessChecker validates every message a StatelessClient receives against
// the 2026-07-28 schema: the envelope, the definition the message names
// (a notification's method, an error's code), and the result type of the
// request it answers. It also enforces the wire rules the schema cannot:
// no server request on a response stream, resultType on every result,
// input_required only where it is allowed.
type statelessChecker struct {
	t     reporter
	count *atomic.Int64
}

func (k *statelessChecker) observe(request string, msg []byte) {
	k.t.Helper()
	v, err := wire.Load(mcp.Version20260728)
	if err != nil {
		k.t.Errorf("load schema %s: %v", mcp.Version20260728, err)
		return
	}
	k.count.Add(1)
	if err := v.Validate(msg); err != nil {
		k.t.Errorf("message (%s) violates the 2026-07-28 schema: %v\n%s", request, err, msg)
		return
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		k.t.Errorf("message (%s) is no JSON object: %v\n%s", request, err, msg)
		return
	}
	var def string
	switch {
	case env.Method != "" && env.ID != nil:
		k.t.Errorf("a JSON-RPC request on the stream of a 2026-07-28 %s; that wire has no server-to-client requests:\n%s", request, msg)
		return
	case env.Method != "":
		def = "ServerNotification"
		if err := v.ValidateAs(def, msg); err != nil {
			k.t.Errorf("%s (%s) violates the 2026-07-28 schema: %v\n%s", def, request, err, msg)
		}
		return
	case env.Result == nil:
		return // an error response: Validate checked it against its code's definition
	}
	var base mcptest.StatelessResult
	if err := json.Unmarshal(env.Result, &base); err != nil {
		k.t.Errorf("result of %s: %v\n%s", request, err, msg)
		return
	}
	switch base.ResultType {
	case "":
		k.t.Errorf("result of %s has no resultType:\n%s", request, msg)
		return
	case mcp.ResultInputRequired:
		if !slices.Contains(inputMethods, request) {
			k.t.Errorf("%s answered input_required; only %v may:\n%s", request, inputMethods, msg)
		}
		def = "InputRequiredResult"
	default:
		def = statelessResultDefs[request]
	}
	if def == "" {
		k.t.Errorf("no result definition known for %q:\n%s", request, msg)
		return
	}
	if err := v.ValidateAs(def, env.Result); err != nil {
		k.t.Errorf("%s (%s) violates the 2026-07-28 schema: %v\n%s", def, request, err, msg)
	}
}

// stateless returns a 2026-07-28 client of the env's server whose every
// received message is schema-checked. It declares every client
// capability, as the conformance harness does.
func (e *env) stateless() *mcptest.StatelessClient {
	c := mcptest.NewStatelessClient(e.srv.URL + "/mcp")
	c.HTTP = e.srv.Client()
	c.ClientInfo = &mcp.Implementation{Name: "specter-integration", Version: "1.0.0"}
	c.Capabilities = mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapability{}, Sampling: &mcp.SamplingCapability{}, Roots: &mcp.RootsCapability{ListChanged: true},
	}
	k := &statelessChecker{t: e.t, count: &e.checked}
	c.OnMessage = k.observe
	return c
}

// send sends r and fails the test if no answer arrives.
func send(t testing.TB, c *mcptest.StatelessClient, r *mcptest.StatelessRequest) *mcptest.Response {
	t.Helper()
	resp, err := c.Send(ctx(t), r)
	if err != nil {
		t.Fatalf("%s: %v", r.Method, err)
	}
	return resp
}

// call sends a request built by c.Request and fails the test on transport
// errors.
func call(t testing.TB, c *mcptest.StatelessClient, method string, params map[string]any) *mcptest.Response {
	t.Helper()
	return send(t, c, c.Request(method, params))
}

// callTool calls a tool; extra carries inputResponses and requestState.
func callTool(t testing.TB, c *mcptest.StatelessClient, name string, args, extra map[string]any) *mcptest.Response {
	t.Helper()
	p := map[string]any{"name": name}
	if args != nil {
		p["arguments"] = args
	}
	for k, v := range extra {
		p[k] = v
	}
	return call(t, c, "tools/call", p)
}

// complete decodes a complete result into v (if not nil) and returns its
// envelope, failing the test for an error or another result type.
func complete(t testing.TB, resp *mcptest.Response, v any) mcptest.StatelessResult {
	t.Helper()
	var base mcptest.StatelessResult
	if resp.Error != nil {
		t.Fatalf("HTTP %d error %d: %s (data %v)", resp.Status, resp.Error.Code, resp.Error.Message, resp.Error.Data)
	}
	if err := resp.Decode(&base); err != nil {
		t.Fatalf("decode result: %v", err)
	}
	if base.ResultType != mcp.ResultComplete {
		t.Fatalf("resultType %q, want complete: %s", base.ResultType, resp.Result)
	}
	if resp.Status != http.StatusOK {
		t.Errorf("HTTP %d for a complete result", resp.Status)
	}
	if v != nil {
		if err := resp.Decode(v); err != nil {
			t.Fatalf("decode result: %v", err)
		}
	}
	return base
}

// inputRequired returns an input_required result, failing the test for
// anything else.
func inputRequired(t testing.TB, resp *mcptest.Response) mcptest.StatelessResult {
	t.Helper()
	if resp.Error != nil {
		t.Fatalf("HTTP %d error %d: %s (data %v)", resp.Status, resp.Error.Code, resp.Error.Message, resp.Error.Data)
	}
	var res mcptest.StatelessResult
	if err := resp.Decode(&res); err != nil {
		t.Fatalf("decode result: %v", err)
	}
	if res.ResultType != mcp.ResultInputRequired {
		t.Fatalf("resultType %q, want input_required: %s", res.ResultType, resp.Result)
	}
	if res.TTLMs != nil || res.CacheScope != "" {
		t.Errorf("an input_required result carries caching hints: %s", resp.Result)
	}
	return res
}

// toolText returns the text of a complete tool result with one text item.
func toolText(t testing.TB, resp *mcptest.Response) string {
	t.Helper()
	var res mcptest.ToolResult
	complete(t, resp, &res)
	if len(res.Content) != 1 || res.Content[0].ContentType() != "text" {
		t.Fatalf("content %+v, want one text item", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// wantError checks an error answer: its HTTP status, its JSON-RPC code,
// that it is plain JSON, and that it echoes the request id.
func wantError(t testing.TB, resp *mcptest.Response, id jsonrpc.ID, status, code int) *jsonrpc.Error {
	t.Helper()
	if resp.Error == nil {
		t.Errorf("HTTP %d with result %s, want error %d", resp.Status, resp.Result, code)
		return &jsonrpc.Error{}
	}
	if resp.Status != status || resp.Error.Code != code {
		t.Errorf("HTTP %d error %d (%s), want HTTP %d error %d", resp.Status, resp.Error.Code, resp.Error.Message, status, code)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || resp.Streamed {
		t.Errorf("error answered as %q (streamed %v), want application/json", ct, resp.Streamed)
	}
	if !bytes.Equal(resp.ID, id) {
		t.Errorf("error id %s, want the request's id %s", resp.ID, id)
	}
	return resp.Error
}

// serverInfo decodes _meta["io.modelcontextprotocol/serverInfo"].
func serverInfo(t testing.TB, res mcptest.StatelessResult) mcp.Implementation {
	t.Helper()
	var info mcp.Implementation
	raw, ok := res.Meta[mcp.MetaServerInfo]
	if !ok {
		t.Errorf("result _meta has no %s: %v", mcp.MetaServerInfo, res.Meta)
		return info
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		t.Errorf("serverInfo %s: %v", raw, err)
	}
	return info
}

// elicitAccept is an accepted form elicitation answer.
func elicitAccept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

// fakeReporter records what the checker reports.
type fakeReporter struct{ errs []string }

func (f *fakeReporter) Helper() {}
func (f *fakeReporter) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// TestStatelessCheckerRejects makes sure the checker the other tests rely on
// fails on what the 2026-07-28 wire forbids.
func TestStatelessCheckerRejects(t *testing.T) {
	info := `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}`
	tests := []struct {
		name, request, msg, want string
	}{
		{"no resultType", "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, "violates"},
		{"list without caching hints", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`, "ListToolsResult"},
		{"input_required on a list", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`, "only"},
		{"server request", "tools/call", `{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`, "no server-to-client requests"},
		{"progress without token", "tools/call", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, "violates"},
		{"-32022 without data", "server/discover", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no"}}`, "violates"},
		{"bad tool result", "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + info + `}}`, "CallToolResult"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeReporter{}
			k := &statelessChecker{t: f, count: new(atomic.Int64)}
			k.observe(tt.request, []byte(tt.msg))
			if len(f.errs) == 0 || !strings.Contains(strings.Join(f.errs, "\n"), tt.want) {
				t.Errorf("checker reported %q, want a complaint mentioning %q", f.errs, tt.want)
			}
		})
	}
	f := &fakeReporter{}
	k := &statelessChecker{t: f, count: new(atomic.Int64)}
	k.observe("tools/call", []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],`+info+`}}`))
	k.observe("tools/list", []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`))
	k.observe("tools/call", []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"roots/list"}}}}`))
	if len(f.errs) != 0 || k.count.Load() != 3 {
		t.Errorf("valid messages: %q (checked %d)", f.errs, k.count.Load())
	}
}
