package integration

//lint:file-ignore SA1019 the interop tests exercise the go-sdk's sampling, logging and roots, deprecated on 2026-07-28 but still served

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// The official Go SDK client (github.com/modelcontextprotocol/go-sdk)
// drives the fixture router over real HTTP, once in a 2025-11-25 session
// and once on the stateless 2026-07-28 wire. Every message the server
// sends it is recorded off the wire and checked against the official
// schema of the negotiated version.
func TestInteropGoSDK(t *testing.T) {
	t.Run("session", testInteropGoSDKSession)
	t.Run("stateless", testInteropGoSDKStateless)
}

const (
	sdkProgressToken = "interop-progress-1"
	sdkElicitMessage = "Please tell us who you are"
	sdkSamplePrompt  = "What is the capital of France?"
	sdkSampleAnswer  = "Paris"
)

// sdkElicitAnswer is what the client's elicitation handler accepts with.
var sdkElicitAnswer = map[string]any{"username": "gopher", "email": "gopher@example.com"}

// sdkFixture is the fixture router plus one prompt whose argument
// completes, so that completion/complete has something to suggest.
func sdkFixture() *specter.Router {
	r := fixture.New(quiet)
	r.Prompt("interop_language", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Write it in " + p.String("language"))
	}, specter.Description("A prompt whose language argument completes"),
		params.String("language", params.Required(), params.Description("A programming language")),
		specter.Complete("language", specter.Values("Go", "Golang", "Rust")))
	return r
}

// sdkHarness is one Go SDK client of a fixture router and everything it saw.
type sdkHarness struct {
	t      *testing.T
	e      *env
	wire   *sdkWire
	hc     *http.Client
	client *sdk.Client
	logs   *sdkLogSink

	mu       sync.Mutex
	progress []sdk.ProgressNotificationParams
	messages []sdk.LoggingMessageParams
	elicits  []sdk.ElicitParams
	samples  []sdk.CreateMessageParams
}

// newSDKHarness serves the fixture and builds a Go SDK client of it whose
// HTTP traffic passes through a recording, schema-checking transport;
// observe checks each message the server sends (request is the JSON-RPC
// method of the request whose stream carried it, "GET" on a GET stream).
func newSDKHarness(t *testing.T, observe func(request string, msg []byte)) *sdkHarness {
	e := newEnv(t, sdkFixture())
	h := &sdkHarness{t: t, e: e, logs: &sdkLogSink{}}
	h.wire = &sdkWire{base: e.srv.Client().Transport, observe: observe}
	h.hc = &http.Client{Transport: h.wire}
	t.Cleanup(func() {
		h.wire.stop()
		h.hc.CloseIdleConnections()
		for _, rec := range h.logs.warnings() {
			t.Errorf("the Go SDK client logged a warning: %s", rec)
		}
	})
	h.client = sdk.NewClient(&sdk.Implementation{Name: "specter-interop", Version: "1.0.0"}, &sdk.ClientOptions{
		Logger: slog.New(h.logs),
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			h.mu.Lock()
			h.elicits = append(h.elicits, *req.Params)
			h.mu.Unlock()
			return &sdk.ElicitResult{Action: "accept", Content: sdkElicitAnswer}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			h.mu.Lock()
			h.samples = append(h.samples, *req.Params)
			h.mu.Unlock()
			return &sdk.CreateMessageResult{Role: "assistant", Model: "interop-model", Content: &sdk.TextContent{Text: sdkSampleAnswer}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.progress = append(h.progress, *req.Params)
			h.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			h.mu.Lock()
			h.messages = append(h.messages, *req.Params)
			h.mu.Unlock()
		},
	})
	return h
}

// connect opens a client session at version ("" lets the SDK choose, which
// in v1.8.0 means 2026-07-28 through server/discover). The session is
// closed when the test ends if the test did not close it.
func (h *sdkHarness) connect(version string) *sdk.ClientSession {
	h.t.Helper()
	transport := &sdk.StreamableClientTransport{Endpoint: h.e.srv.URL + "/mcp", HTTPClient: h.hc}
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := h.client.Connect(ctx(h.t), transport, opts)
	if err != nil {
		h.t.Fatalf("Go SDK Connect(%q): %v", version, err)
	}
	h.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// waitFor polls cond until the test's deadline: the SDK hands
// notifications to their handlers on its own goroutine, which may lag the
// result.
func (h *sdkHarness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	waitUntil(h.t, what, cond)
}

func (h *sdkHarness) progressSeen() []sdk.ProgressNotificationParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.progress)
}

func (h *sdkHarness) logsSeen() []sdk.LoggingMessageParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.messages)
}

// sdkText returns the text of a result's only content item.
func sdkText(t testing.TB, content []sdk.Content) string {
	t.Helper()
	if len(content) != 1 {
		t.Fatalf("want one content item, got %d: %s", len(content), mustJSON(content))
	}
	tc, ok := content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T: %s", content[0], mustJSON(content[0]))
	}
	return tc.Text
}

// referenceTools lists every tool of the fixture with Specter's own test
// client (following nextCursor), in a session it deletes afterwards.
func referenceTools(t *testing.T, e *env) map[string]mcp.Tool {
	t.Helper()
	c := e.session(nil, mcp.LatestSessionVersion)
	out := map[string]mcp.Tool{}
	cursor := ""
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatal("tools/list never ends")
		}
		var p any
		if cursor != "" {
			p = map[string]any{"cursor": cursor}
		}
		resp, err := c.Call(ctx(t), "tools/list", p)
		if err != nil {
			t.Fatalf("reference tools/list: %v", err)
		}
		var res mcp.ListToolsResult
		if err := resp.Decode(&res); err != nil {
			t.Fatalf("reference tools/list: %v", err)
		}
		for _, tool := range res.Tools {
			out[tool.Name] = tool
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if status, err := c.Delete(ctx(t)); err != nil || status/100 != 2 {
		t.Fatalf("reference DELETE: %d %v", status, err)
	}
	if n := e.r.Sessions(); n != 0 {
		t.Fatalf("after the reference session: %d sessions, want 0", n)
	}
	return out
}

// checkTools lists the tools through the SDK (following its pagination)
// and compares them with the reference listing: the SDK drops tools it
// considers invalid, so a missing tool is an interop failure.
func (h *sdkHarness) checkTools(cs *sdk.ClientSession, want map[string]mcp.Tool) {
	t := h.t
	t.Helper()
	got := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(ctx(t), nil) {
		if err != nil {
			t.Fatalf("Go SDK tools/list: %v", err)
		}
		if got[tool.Name] != nil {
			t.Errorf("tool %s listed twice", tool.Name)
		}
		got[tool.Name] = tool
	}
	for _, name := range []string{"test_simple_text", "test_tool_with_progress", "test_tool_with_logging", "test_elicitation", "test_sampling", "test_error_handling", "test_x_mcp_header"} {
		if want[name].Name == "" {
			t.Errorf("the reference listing lacks fixture tool %s", name)
		}
	}
	for name := range want {
		if got[name] == nil {
			t.Errorf("tool %s is listed by the server but not by the Go SDK", name)
		}
	}
	for name, tool := range got {
		if want[name].Name == "" {
			t.Errorf("the Go SDK listed %s, which the server does not", name)
		}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", name)
		}
		var schema struct {
			Type any `json:"type"`
		}
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil || json.Unmarshal(raw, &schema) != nil || schema.Type != "object" {
			t.Errorf("tool %s: inputSchema is not an object schema: %s (%v)", name, raw, err)
		}
	}
}

// checkCalls runs the calls both eras answer alike: plain text, progress,
// logging (logLevel sets the level: setLevel in a session, _meta on
// 2026-07-28), elicitation, sampling, resources, prompts, completion and
// both kinds of tool failure.
func (h *sdkHarness) checkCalls(cs *sdk.ClientSession, logLevel func(level sdk.LoggingLevel, p *sdk.CallToolParams)) {
	t := h.t
	t.Helper()
	c := ctx(t)

	t.Run("simple text", func(t *testing.T) {
		res, err := cs.CallTool(c, &sdk.CallToolParams{Name: "test_simple_text"})
		if err != nil {
			t.Fatalf("test_simple_text: %v", err)
		}
		if res.IsError {
			t.Errorf("test_simple_text isError: %s", mustJSON(res))
		}
		if got := sdkText(t, res.Content); got != "This is a simple text response for testing." {
			t.Errorf("test_simple_text = %q", got)
		}
	})

	t.Run("progress", func(t *testing.T) {
		p := &sdk.CallToolParams{Name: "test_tool_with_progress"}
		p.SetProgressToken(sdkProgressToken)
		res, err := cs.CallTool(c, p)
		if err != nil {
			t.Fatalf("test_tool_with_progress: %v", err)
		}
		// The fixture answers with the token as it was sent (JSON).
		if got := sdkText(t, res.Content); got != `"`+sdkProgressToken+`"` {
			t.Errorf("test_tool_with_progress = %q, want the token", got)
		}
		h.waitFor("3 progress notifications", func() bool { return len(h.progressSeen()) >= 3 })
		seen := h.progressSeen()
		if len(seen) != 3 {
			t.Fatalf("got %d progress notifications, want 3: %s", len(seen), mustJSON(seen))
		}
		for i, want := range []float64{0, 50, 100} {
			n := seen[i]
			if n.ProgressToken != sdkProgressToken || n.Progress != want || n.Total != 100 ||
				n.Message != fmt.Sprintf("Completed step %d of 100", int(want)) {
				t.Errorf("progress %d = %s, want progress %g of 100 for token %q", i, mustJSON(n), want, sdkProgressToken)
			}
		}
		// Order on the wire: every notification before the result.
		h.wire.wantStream(t, "test_tool_with_progress", []string{
			"notifications/progress", "notifications/progress", "notifications/progress", "result",
		})
	})

	t.Run("logging", func(t *testing.T) {
		p := &sdk.CallToolParams{Name: "test_tool_with_logging"}
		logLevel("debug", p)
		res, err := cs.CallTool(c, p)
		if err != nil {
			t.Fatalf("test_tool_with_logging: %v", err)
		}
		if got := sdkText(t, res.Content); got != "Tool with logging executed successfully" {
			t.Errorf("test_tool_with_logging = %q", got)
		}
		h.waitFor("3 log messages", func() bool { return len(h.logsSeen()) >= 3 })
		seen := h.logsSeen()
		want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
		if len(seen) != len(want) {
			t.Fatalf("got %d log messages, want %d: %s", len(seen), len(want), mustJSON(seen))
		}
		for i, m := range seen {
			if m.Level != "info" || m.Data != want[i] {
				t.Errorf("log message %d = %s, want info %q", i, mustJSON(m), want[i])
			}
		}
		h.wire.wantStream(t, "test_tool_with_logging", []string{
			"notifications/message", "notifications/message", "notifications/message", "result",
		})

		// Above the messages' level, none is sent.
		p = &sdk.CallToolParams{Name: "test_tool_with_logging"}
		logLevel("error", p)
		if _, err := cs.CallTool(c, p); err != nil {
			t.Fatalf("test_tool_with_logging at error: %v", err)
		}
		h.wire.wantStream(t, "test_tool_with_logging", []string{"result"})
		if n := len(h.logsSeen()); n != 3 {
			t.Errorf("at level error the client got %d log messages in all, want still 3", n)
		}
	})

	t.Run("elicitation", func(t *testing.T) {
		res, err := cs.CallTool(c, &sdk.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": sdkElicitMessage}})
		if err != nil {
			t.Fatalf("test_elicitation: %v", err)
		}
		if res.IsError {
			t.Fatalf("test_elicitation isError: %s", mustJSON(res))
		}
		if got, want := sdkText(t, res.Content), `User response: action=accept, content=`+mustJSON(sdkElicitAnswer); got != want {
			t.Errorf("test_elicitation = %q, want %q", got, want)
		}
		h.mu.Lock()
		elicits := slices.Clone(h.elicits)
		h.mu.Unlock()
		if len(elicits) != 1 {
			t.Fatalf("the elicitation handler ran %d times, want 1", len(elicits))
		}
		if elicits[0].Message != sdkElicitMessage || !strings.Contains(mustJSON(elicits[0].RequestedSchema), `"username"`) {
			t.Errorf("elicitation request = %s", mustJSON(elicits[0]))
		}
	})

	t.Run("sampling", func(t *testing.T) {
		res, err := cs.CallTool(c, &sdk.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": sdkSamplePrompt}})
		if err != nil {
			t.Fatalf("test_sampling: %v", err)
		}
		if got := sdkText(t, res.Content); got != "LLM response: "+sdkSampleAnswer {
			t.Errorf("test_sampling = %q", got)
		}
		h.mu.Lock()
		samples := slices.Clone(h.samples)
		h.mu.Unlock()
		if len(samples) != 1 {
			t.Fatalf("the sampling handler ran %d times, want 1", len(samples))
		}
		s := samples[0]
		if s.MaxTokens != 100 || len(s.Messages) != 1 || s.Messages[0].Role != "user" {
			t.Fatalf("sampling request = %s", mustJSON(s))
		}
		if tc, ok := s.Messages[0].Content.(*sdk.TextContent); !ok || tc.Text != sdkSamplePrompt {
			t.Errorf("sampling message content = %s, want the prompt", mustJSON(s.Messages[0].Content))
		}
	})

	t.Run("resources", func(t *testing.T) {
		res, err := cs.ReadResource(c, &sdk.ReadResourceParams{URI: "test://static-text"})
		if err != nil {
			t.Fatalf("read test://static-text: %v", err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != "test://static-text" || res.Contents[0].MIMEType != "text/plain" ||
			res.Contents[0].Text != "This is the content of the static text resource." {
			t.Errorf("test://static-text = %s", mustJSON(res))
		}

		var templates []string
		for tpl, err := range cs.ResourceTemplates(c, nil) {
			if err != nil {
				t.Fatalf("resources/templates/list: %v", err)
			}
			templates = append(templates, tpl.URITemplate)
		}
		if !slices.Contains(templates, "test://template/{id}/data") {
			t.Errorf("resource templates = %v, want test://template/{id}/data", templates)
		}

		res, err = cs.ReadResource(c, &sdk.ReadResourceParams{URI: "test://template/42/data"})
		if err != nil {
			t.Fatalf("read test://template/42/data: %v", err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != "test://template/42/data" || res.Contents[0].MIMEType != "application/json" {
			t.Fatalf("test://template/42/data = %s", mustJSON(res))
		}
		var data map[string]any
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &data); err != nil ||
			data["id"] != "42" || data["templateTest"] != true || data["data"] != "Data for ID: 42" {
			t.Errorf("test://template/42/data text = %s (%v)", res.Contents[0].Text, err)
		}
	})

	t.Run("prompt", func(t *testing.T) {
		res, err := cs.GetPrompt(c, &sdk.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "first", "arg2": "second"}})
		if err != nil {
			t.Fatalf("test_prompt_with_arguments: %v", err)
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
			t.Fatalf("test_prompt_with_arguments = %s", mustJSON(res))
		}
		tc, ok := res.Messages[0].Content.(*sdk.TextContent)
		if !ok || tc.Text != "Prompt with arguments: arg1='first', arg2='second'" {
			t.Errorf("test_prompt_with_arguments message = %s", mustJSON(res.Messages[0]))
		}
	})

	t.Run("complete", func(t *testing.T) {
		res, err := cs.Complete(c, &sdk.CompleteParams{
			Ref:      &sdk.CompleteReference{Type: "ref/prompt", Name: "interop_language"},
			Argument: sdk.CompleteParamsArgument{Name: "language", Value: "go"},
		})
		if err != nil {
			t.Fatalf("complete interop_language: %v", err)
		}
		if !slices.Equal(res.Completion.Values, []string{"Go", "Golang"}) || res.Completion.Total != 2 || res.Completion.HasMore {
			t.Errorf("complete language=go = %s, want Go and Golang", mustJSON(res.Completion))
		}
		res, err = cs.Complete(c, &sdk.CompleteParams{
			Ref:      &sdk.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"},
			Argument: sdk.CompleteParamsArgument{Name: "id", Value: "4"},
		})
		if err != nil {
			t.Fatalf("complete the template's id: %v", err)
		}
		if res.Completion.Values == nil || len(res.Completion.Values) != 0 {
			t.Errorf("complete id (no completer) = %s, want no values", mustJSON(res.Completion))
		}
	})

	t.Run("tool error", func(t *testing.T) {
		res, err := cs.CallTool(c, &sdk.CallToolParams{Name: "test_error_handling"})
		if err != nil {
			t.Fatalf("test_error_handling came back as an error, want an isError result: %v", err)
		}
		if !res.IsError {
			t.Errorf("test_error_handling: isError not set: %s", mustJSON(res))
		}
		if got := sdkText(t, res.Content); got != "This tool intentionally returns an error for testing" {
			t.Errorf("test_error_handling = %q", got)
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		res, err := cs.CallTool(c, &sdk.CallToolParams{Name: "no_such_tool"})
		if err == nil {
			t.Fatalf("no_such_tool answered a result, want a JSON-RPC error: %s", mustJSON(res))
		}
		var werr *sdkjsonrpc.Error
		if !errors.As(err, &werr) {
			t.Fatalf("no_such_tool: %T %v, want a *jsonrpc.Error", err, err)
		}
		if werr.Code != sdkjsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "no_such_tool") {
			t.Errorf("no_such_tool: code %d %q, want -32602 naming the tool", werr.Code, werr.Message)
		}
	})
}

func testInteropGoSDKSession(t *testing.T) {
	var count atomic.Int64
	var h *sdkHarness
	session := &mcptest.Client{Version: mcp.Version20251125}
	h = newSDKHarness(t, func(request string, msg []byte) {
		(&checker{t: t, c: session, count: &count}).observe(request, msg)
	})
	want := referenceTools(t, h.e)
	h.wire.reset()

	cs := h.connect(mcp.Version20251125)
	ir := cs.InitializeResult()
	if ir.ProtocolVersion != mcp.Version20251125 {
		t.Fatalf("negotiated %q, want %s", ir.ProtocolVersion, mcp.Version20251125)
	}
	if ir.ServerInfo == nil || ir.ServerInfo.Name != "mcp-conformance-test-server" {
		t.Errorf("serverInfo = %s", mustJSON(ir.ServerInfo))
	}
	caps := ir.Capabilities
	if caps == nil || caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || caps.Logging == nil || caps.Completions == nil {
		t.Errorf("capabilities = %s, want tools, prompts, resources, logging and completions", mustJSON(caps))
	}
	id := cs.ID()
	if id == "" {
		t.Fatal("no Mcp-Session-Id after initialize")
	}
	if x := h.wire.find("initialize"); x == nil || x.sessionOut != id || x.status != http.StatusOK {
		t.Errorf("initialize exchange = %+v, want 200 with Mcp-Session-Id %s", x, id)
	}
	if n := h.e.r.Sessions(); n != 1 {
		t.Errorf("%d sessions after Connect, want 1", n)
	}
	// The SDK opens its standalone GET stream once initialized.
	h.waitFor("the standalone GET stream", func() bool { return h.e.r.StreamsAttached() == 1 })

	t.Run("list tools", func(t *testing.T) { h.checkTools(cs, want) })
	h.checkCalls(cs, func(level sdk.LoggingLevel, _ *sdk.CallToolParams) {
		if err := cs.SetLoggingLevel(ctx(t), &sdk.SetLoggingLevelParams{Level: level}); err != nil {
			t.Fatalf("logging/setLevel %s: %v", level, err)
		}
	})

	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	del := h.wire.last(http.MethodDelete)
	if del == nil {
		t.Fatal("Close sent no DELETE")
	}
	if del.sessionIn != id || del.status/100 != 2 {
		t.Errorf("DELETE carried session %q and got %d, want session %s and 2xx", del.sessionIn, del.status, id)
	}
	if n := h.e.r.Sessions(); n != 0 {
		t.Errorf("%d sessions after Close, want 0", n)
	}
	h.waitFor("the GET stream to end", func() bool { return h.e.r.StreamsAttached() == 0 })

	for _, x := range h.wire.all() {
		if x.method != http.MethodDelete && x.method != http.MethodGet && x.sessionIn != id && x.rpc != "initialize" {
			t.Errorf("%s %s carried session %q, want %s", x.method, x.rpc, x.sessionIn, id)
		}
		if x.rpc != "initialize" && x.protocolVersion != mcp.Version20251125 {
			t.Errorf("%s %s carried Mcp-Protocol-Version %q, want %s", x.method, x.rpc, x.protocolVersion, mcp.Version20251125)
		}
		if x.status >= 400 {
			t.Errorf("%s got HTTP %d", &x, x.status)
		}
	}
	if count.Load() == 0 {
		t.Error("no server message was schema-checked")
	}
}

func testInteropGoSDKStateless(t *testing.T) {
	var count atomic.Int64
	k := &statelessChecker{t: t, count: &count}
	h := newSDKHarness(t, k.observe)
	want := referenceTools(t, h.e)
	h.wire.reset()

	cs := h.connect("") // v1.8.0 defaults to 2026-07-28: server/discover, no initialize
	ir := cs.InitializeResult()
	if ir.ProtocolVersion != mcp.Version20260728 {
		t.Fatalf("negotiated %q, want %s (the SDK fell back to initialize?)", ir.ProtocolVersion, mcp.Version20260728)
	}
	if ir.ServerInfo == nil || ir.ServerInfo.Name != "mcp-conformance-test-server" {
		t.Errorf("serverInfo = %s", mustJSON(ir.ServerInfo))
	}
	if id := cs.ID(); id != "" {
		t.Errorf("session id %q on the stateless wire", id)
	}
	if x := h.wire.find("server/discover"); x == nil || x.status != http.StatusOK {
		t.Errorf("server/discover exchange = %+v, want 200", x)
	}

	t.Run("list tools", func(t *testing.T) { h.checkTools(cs, want) })
	h.checkCalls(cs, func(level sdk.LoggingLevel, p *sdk.CallToolParams) {
		if p.Meta == nil {
			p.Meta = sdk.Meta{}
		}
		p.Meta[sdk.MetaKeyLogLevel] = level
	})

	t.Run("input required rounds", func(t *testing.T) {
		// Elicitation and sampling took two POSTs each: input_required, then
		// the retry with inputResponses.
		for _, tool := range []string{"test_elicitation", "test_sampling"} {
			kinds := h.wire.streams(tool)
			if len(kinds) != 2 || !slices.Equal(kinds[0], []string{"input_required"}) || !slices.Equal(kinds[1], []string{"result"}) {
				t.Errorf("%s streams = %v, want input_required then the result", tool, kinds)
			}
		}
	})

	t.Run("x-mcp-header", func(t *testing.T) {
		res, err := cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "test_x_mcp_header", Arguments: map[string]any{"region": "eu-west-1", "level": 3}})
		if err != nil {
			t.Fatalf("test_x_mcp_header: %v", err)
		}
		if got := sdkText(t, res.Content); got != "region=eu-west-1" {
			t.Errorf("test_x_mcp_header = %q", got)
		}
		x := h.wire.find("tools/call", "test_x_mcp_header")
		if x == nil || x.header.Get("Mcp-Param-Region") != "eu-west-1" || x.header.Get("Mcp-Method") != "tools/call" || x.header.Get("Mcp-Name") != "test_x_mcp_header" {
			t.Errorf("test_x_mcp_header request headers = %v", x)
		}
	})

	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, x := range h.wire.all() {
		if x.method != http.MethodPost {
			t.Errorf("%s on the stateless wire (only POST is used)", x.method)
		}
		if x.rpc == "initialize" {
			t.Error("the SDK sent initialize on the stateless wire")
		}
		if x.sessionIn != "" || x.sessionOut != "" {
			t.Errorf("%s carried Mcp-Session-Id (sent %q, answered %q)", x.rpc, x.sessionIn, x.sessionOut)
		}
		if x.rpc != "" && x.protocolVersion != mcp.Version20260728 {
			t.Errorf("%s carried Mcp-Protocol-Version %q", x.rpc, x.protocolVersion)
		}
		// An unknown tool is the one request that fails: on this wire Specter
		// answers its -32602 with 400 (the spec asks 400 for header, version
		// and capability errors and leaves other JSON-RPC errors open).
		if x.name == "no_such_tool" {
			if x.status != http.StatusBadRequest || x.contentType != "application/json" || !slices.Equal(x.kinds, []string{"error"}) {
				t.Errorf("%s, want 400 with a JSON-RPC error", &x)
			}
		} else if x.status >= 400 {
			t.Errorf("%s got HTTP %d", &x, x.status)
		}
	}
	if n := h.e.r.Sessions(); n != 0 {
		t.Errorf("%d sessions on the stateless wire, want 0", n)
	}
	if count.Load() == 0 {
		t.Error("no server message was schema-checked")
	}
}

// sdkWire sits between the SDK and the server: it records every HTTP
// exchange and hands every JSON-RPC message the server sends to observe,
// in arrival order.
type sdkWire struct {
	base    http.RoundTripper
	observe func(request string, msg []byte)

	mu        sync.Mutex
	exchanges []*sdkExchange
	stopped   bool
}

// sdkExchange is one HTTP request of the SDK and what came back on it.
type sdkExchange struct {
	method          string      // HTTP method
	rpc             string      // JSON-RPC method posted ("" for an answer, a GET or a DELETE)
	name            string      // params.name or params.uri
	header          http.Header // the request's headers
	sessionIn       string      // Mcp-Session-Id sent
	sessionOut      string      // Mcp-Session-Id answered
	protocolVersion string      // Mcp-Protocol-Version sent
	status          int
	contentType     string
	kinds           []string // server messages: a method, "result", "input_required" or "error"
}

func (x *sdkExchange) String() string {
	return fmt.Sprintf("%s %s %s: %d %s %v", x.method, x.rpc, x.name, x.status, x.contentType, x.kinds)
}

func (w *sdkWire) RoundTrip(req *http.Request) (*http.Response, error) {
	x := &sdkExchange{
		method:          req.Method,
		header:          req.Header.Clone(),
		sessionIn:       req.Header.Get("Mcp-Session-Id"),
		protocolVersion: req.Header.Get("Mcp-Protocol-Version"),
	}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		var env struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &env) == nil {
			x.rpc, x.name = env.Method, env.Params.Name+env.Params.URI
		}
	}
	resp, err := w.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	x.status = resp.StatusCode
	x.contentType, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	x.sessionOut = resp.Header.Get("Mcp-Session-Id")
	w.mu.Lock()
	w.exchanges = append(w.exchanges, x)
	w.mu.Unlock()
	request := x.rpc
	if req.Method == http.MethodGet {
		request = "GET"
	}
	switch x.contentType {
	case "text/event-stream", "application/json":
		resp.Body = &sdkTee{ReadCloser: resp.Body, w: w, x: x, request: request, sse: x.contentType == "text/event-stream"}
	}
	return resp, nil
}

// deliver records and checks one message the server sent on x's stream.
func (w *sdkWire) deliver(x *sdkExchange, request string, msg []byte) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return // an SSE priming event
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result *struct {
			ResultType string `json:"resultType"`
		} `json:"result"`
	}
	kind := "error"
	if err := json.Unmarshal(msg, &env); err != nil {
		kind = "invalid JSON"
	}
	switch {
	case env.Method != "":
		kind = env.Method
	case env.Result != nil && env.Result.ResultType == mcp.ResultInputRequired:
		kind = "input_required"
	case env.Result != nil:
		kind = "result"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	x.kinds = append(x.kinds, kind)
	w.observe(request, msg)
}

// stop ends checking: a stream the SDK still reads after the test must
// not report into a finished test.
func (w *sdkWire) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

func (w *sdkWire) reset() {
	w.mu.Lock()
	w.exchanges = nil
	w.mu.Unlock()
}

func (w *sdkWire) all() []sdkExchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]sdkExchange, len(w.exchanges))
	for i, x := range w.exchanges {
		out[i] = *x
		out[i].kinds = slices.Clone(x.kinds)
	}
	return out
}

// find returns the first exchange that posted rpc (for the named tool,
// prompt or resource, when given).
func (w *sdkWire) find(rpc string, name ...string) *sdkExchange {
	for _, x := range w.all() {
		if x.rpc == rpc && (len(name) == 0 || x.name == name[0]) {
			return &x
		}
	}
	return nil
}

// last returns the last exchange of an HTTP method.
func (w *sdkWire) last(method string) *sdkExchange {
	all := w.all()
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].method == method {
			return &all[i]
		}
	}
	return nil
}

// streams returns the message kinds of each tools/call POST of a tool.
func (w *sdkWire) streams(tool string) [][]string {
	var out [][]string
	for _, x := range w.all() {
		if x.rpc == "tools/call" && x.name == tool {
			out = append(out, x.kinds)
		}
	}
	return out
}

// wantStream checks the kinds of the messages on the last tools/call POST
// of tool, in wire order.
func (w *sdkWire) wantStream(t testing.TB, tool string, want []string) {
	t.Helper()
	s := w.streams(tool)
	if len(s) == 0 {
		t.Errorf("no tools/call of %s on the wire", tool)
		return
	}
	if got := s[len(s)-1]; !slices.Equal(got, want) {
		t.Errorf("%s answered on the wire %v, want %v", tool, got, want)
	}
}

// sdkTee passes a response body through to the SDK and splits what it
// reads into JSON-RPC messages: SSE data events, or the whole JSON body.
type sdkTee struct {
	io.ReadCloser
	w       *sdkWire
	x       *sdkExchange
	request string
	sse     bool

	buf  []byte
	data []string // data lines of the SSE event being read
	done bool
}

func (b *sdkTee) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.buf = append(b.buf, p[:n]...)
	if b.sse {
		for {
			i := bytes.IndexByte(b.buf, '\n')
			if i < 0 {
				break
			}
			line := strings.TrimSuffix(string(b.buf[:i]), "\r")
			b.buf = b.buf[i+1:]
			switch {
			case line == "":
				if len(b.data) > 0 {
					b.w.deliver(b.x, b.request, []byte(strings.Join(b.data, "\n")))
				}
				b.data = nil
			case strings.HasPrefix(line, "data:"):
				b.data = append(b.data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
	} else if err == io.EOF && !b.done {
		b.done = true
		b.w.deliver(b.x, b.request, b.buf)
	}
	return n, err
}

// sdkLogSink is the SDK client's slog handler: it keeps warnings and
// errors, which name what the SDK disliked about the server.
type sdkLogSink struct {
	mu   sync.Mutex
	recs []string
}

func (s *sdkLogSink) Enabled(context.Context, slog.Level) bool { return true }

func (s *sdkLogSink) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	s.mu.Lock()
	s.recs = append(s.recs, r.Level.String()+" "+b.String())
	s.mu.Unlock()
	return nil
}

func (s *sdkLogSink) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *sdkLogSink) WithGroup(string) slog.Handler      { return s }

func (s *sdkLogSink) warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.recs)
}
