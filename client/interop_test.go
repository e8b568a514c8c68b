package client_test

//lint:file-ignore SA1019 the interop tests exercise the go-sdk's sampling, logging and roots, deprecated on 2026-07-28 but still served

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/stdio"
)

// sdkServer is an MCP server built with the official Go SDK: a tool of
// each kind the client must handle, a prompt and a resource.
func sdkServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "go-sdk-server", Version: "1.0.0"}, nil)
	empty := &sdk.Tool{InputSchema: json.RawMessage(`{"type":"object"}`)}
	tool := func(name string, h sdk.ToolHandler) {
		t := *empty
		t.Name = name
		s.AddTool(&t, h)
	}
	reply := func(text string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
	}
	tool("greet", func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return reply("Hello, " + args.Name), nil
	})
	tool("progress", func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		token := req.Params.GetProgressToken()
		for i := 1; i <= 3; i++ {
			if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3}); err != nil {
				return nil, err
			}
		}
		return reply("done"), nil
	})
	// sample and elicit are multi round-trip handlers: input_required
	// results on the 2026-07-28 wire, which the SDK turns into server
	// requests for clients of the session era.
	tool("sample", func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if res, ok := req.Params.InputResponses["llm"].(*sdk.CreateMessageWithToolsResult); ok && len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*sdk.TextContent); ok {
				return reply("model said: " + tc.Text), nil
			}
		}
		return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"llm": &sdk.CreateMessageParams{
			Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Capital of France?"}}},
			MaxTokens: 50,
		}}}, nil
	})
	tool("elicit", func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if res, ok := req.Params.InputResponses["who"].(*sdk.ElicitResult); ok {
			if req.Params.RequestState != "step-1" {
				return nil, fmt.Errorf("requestState %q is not the one handed out", req.Params.RequestState)
			}
			return reply(fmt.Sprintf("%s: %v %v", res.Action, res.Content["name"], res.Content["lang"])), nil
		}
		return &sdk.CallToolResult{RequestState: "step-1", InputRequests: sdk.InputRequestMap{"who": &sdk.ElicitParams{
			Message:         "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"lang":{"type":"string","default":"Go"}},"required":["name"]}`),
		}}}, nil
	})
	tool("resume", func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if req.Extra != nil && req.Extra.CloseSSEStream != nil {
			// Drop the response stream; the answer waits in the event
			// store until the client comes back for it.
			req.Extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: 50 * time.Millisecond})
		}
		time.Sleep(100 * time.Millisecond)
		return reply("resumed"), nil
	})
	s.AddPrompt(&sdk.Prompt{Name: "review", Arguments: []*sdk.PromptArgument{{Name: "code", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Review: " + req.Params.Arguments["code"]}}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me"}}}, nil
		})
	return s
}

// serverQuirks says what a server under test does not do.
type serverQuirks struct {
	// noResume: it has no tool that drops its response stream.
	noResume bool
	// looseProgress: its progress notifications may arrive out of order
	// or not at all (mcp-go hands them to whichever of the session's
	// streams reads first, and drops those of a stream that ended).
	looseProgress bool
}

// driveServer exercises everything sdkServer (or mcpgoServer) offers,
// including, unless q.noResume, a response stream that drops before its
// answer.
func driveServer(t *testing.T, c *client.Client, q serverQuirks) {
	ctx := t.Context()
	var names []string
	for tool, err := range c.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	for _, want := range []string{"greet", "progress", "sample", "elicit"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v: no %s", names, want)
		}
	}
	call := func(name string, args any, want string, opts ...client.CallOption) {
		t.Helper()
		res, err := c.CallTool(ctx, name, args, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := text(t, res); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	call("greet", map[string]string{"name": "Ada"}, "Hello, Ada")
	var mu sync.Mutex
	var progress []float64
	call("progress", nil, "done", client.WithProgress(func(p mcp.ProgressParams) {
		mu.Lock()
		progress = append(progress, p.Progress)
		mu.Unlock()
	}))
	mu.Lock()
	if q.looseProgress {
		for _, p := range progress {
			if p < 1 || p > 3 {
				t.Errorf("progress %v", progress)
			}
		}
	} else if !slices.Equal(progress, []float64{1, 2, 3}) {
		t.Errorf("progress %v", progress)
	}
	mu.Unlock()
	call("sample", nil, "model said: Paris")
	call("elicit", nil, "accept: Ada Go") // "lang" filled from its default
	if !q.noResume {
		call("resume", nil, "resumed")
	}
	p, err := c.GetPrompt(ctx, "review", map[string]string{"code": "x := 1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Messages[0].Content.(*mcp.TextContent).Text; got != "Review: x := 1" {
		t.Errorf("prompt %q", got)
	}
	r, err := c.ReadResource(ctx, "test://readme")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Contents) != 1 || *r.Contents[0].Text != "read me" {
		t.Errorf("resource %+v", r.Contents)
	}
}

// TestInteropGoSDKServer drives a Go SDK server over Streamable HTTP:
// in a session, with an event store so that a dropped stream resumes, and
// statelessly in 2026-07-28, where its sampling and elicitation are
// multi round-trip requests.
func TestInteropGoSDKServer(t *testing.T) {
	s := sdkServer()
	for _, tc := range []struct {
		name    string
		opts    *sdk.StreamableHTTPOptions
		version string
		quirks  serverQuirks
	}{
		{"session", &sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)}, mcp.Version20251125, serverQuirks{}},
		{"stateless", &sdk.StreamableHTTPOptions{Stateless: true}, mcp.Version20260728, serverQuirks{noResume: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, tc.opts))
			t.Cleanup(srv.Close) // after the client's Close, registered later
			c := connect(t, &client.HTTPTransport{URL: srv.URL}, handlers(nil))
			if c.Version() != tc.version || c.ServerInfo().Name != "go-sdk-server" {
				t.Fatalf("version %s, server %+v: want %s", c.Version(), c.ServerInfo(), tc.version)
			}
			driveServer(t, c, tc.quirks)
		})
	}
}

// stdioServerEnv makes the test binary an MCP server on stdio (see
// TestMain).
const stdioServerEnv = "SPECTER_CLIENT_TEST_STDIO_SERVER"

// runStdioServer serves, on standard input and output, sdkServer or,
// when the variable says "specter", Specter's conformance fixture, in
// Content-Length frames when it says "specter-content-length" ("stall": a
// server that stops reading, see runStallingServer).
func runStdioServer() {
	var err error
	switch os.Getenv(stdioServerEnv) {
	case "stall":
		runStallingServer()
	case "specter":
		err = (&stdio.Server{Handler: fixture.New(specter.Logger(zerolog.Nop()))}).Run(context.Background())
	case "specter-content-length":
		err = (&stdio.Server{Handler: fixture.New(specter.Logger(zerolog.Nop())), Framing: stdio.ContentLength}).Run(context.Background())
	default:
		err = sdkServer().Run(context.Background(), &sdk.StdioTransport{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestSpecterStdio launches Specter's fixture as a stdio command and
// drives it in each era: server requests in sessions, multi round-trip
// requests and progress in 2026-07-28.
func TestSpecterStdio(t *testing.T) {
	eras(t, func(t *testing.T, v string) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), stdioServerEnv+"=specter")
		cmd.Stderr = os.Stderr
		c := connect(t, &client.CommandTransport{Cmd: cmd}, handlers(&client.Options{Version: v}))
		if want := cmp.Or(v, mcp.Version20260728); c.Version() != want {
			t.Fatalf("version %s, want %s", c.Version(), want)
		}
		ctx := t.Context()
		for _, tc := range []struct {
			tool string
			args any
			want string
		}{
			{"test_simple_text", nil, "This is a simple text response for testing."},
			{"test_sampling", map[string]string{"prompt": "Capital of France?"}, "LLM response: Paris"},
			{"test_input_required_result_multi_round", nil, "Ada likes Ada"},
		} {
			res, err := c.CallTool(ctx, tc.tool, tc.args)
			if err != nil {
				t.Fatalf("%s: %v", tc.tool, err)
			}
			if got := text(t, res); got != tc.want {
				t.Errorf("%s: %q, want %q", tc.tool, got, tc.want)
			}
		}
		var progress []float64
		_, err := c.CallTool(ctx, "test_tool_with_progress", nil, client.WithProgress(func(p mcp.ProgressParams) {
			progress = append(progress, p.Progress)
		}))
		if err != nil || len(progress) != 3 {
			t.Errorf("progress %v, %v", progress, err)
		}
	})
}

// TestInteropStdio launches a Go SDK server as a command and talks to it
// over stdio in each era.
func TestInteropStdio(t *testing.T) {
	eras(t, func(t *testing.T, v string) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), stdioServerEnv+"=1")
		cmd.Stderr = os.Stderr
		c := connect(t, &client.CommandTransport{Cmd: cmd}, handlers(&client.Options{Version: v}))
		if want := cmp.Or(v, mcp.Version20260728); c.Version() != want || c.ServerInfo().Name != "go-sdk-server" {
			t.Fatalf("version %s, server %+v: want %s", c.Version(), c.ServerInfo(), want)
		}
		driveServer(t, c, serverQuirks{noResume: true})
	})
}
