package client_test

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
	tool("sample", func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{
			Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Capital of France?"}}},
			MaxTokens: 50,
		})
		if err != nil {
			return nil, err
		}
		return reply("model said: " + res.Content.(*sdk.TextContent).Text), nil
	})
	tool("elicit", func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{
			Message:         "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"lang":{"type":"string","default":"Go"}},"required":["name"]}`),
		})
		if err != nil {
			return nil, err
		}
		return reply(fmt.Sprintf("%s: %v %v", res.Action, res.Content["name"], res.Content["lang"])), nil
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

// TestInteropGoSDKServer drives a Go SDK server over Streamable HTTP in
// a session, with an event store so that a dropped stream resumes.
func TestInteropGoSDKServer(t *testing.T) {
	s := sdkServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{
		EventStore: sdk.NewMemoryEventStore(nil),
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the client's Close, registered later
	c := connect(t, &client.HTTPTransport{URL: srv.URL}, handlers(nil))
	if !mcp.IsSessionVersion(c.Version()) {
		t.Fatalf("version %s: the Go SDK's session server should have been reached with initialize", c.Version())
	}
	if c.ServerInfo().Name != "go-sdk-server" {
		t.Errorf("server info %+v", c.ServerInfo())
	}
	driveServer(t, c, serverQuirks{})
}

// stdioServerEnv makes the test binary an MCP server on stdio (see
// TestMain).
const stdioServerEnv = "SPECTER_CLIENT_TEST_STDIO_SERVER"

// runStdioServer serves, on standard input and output, sdkServer or,
// when the variable says "specter", Specter's conformance fixture.
func runStdioServer() {
	var err error
	if os.Getenv(stdioServerEnv) == "specter" {
		err = (&stdio.Server{Handler: fixture.New(specter.Logger(zerolog.Nop()))}).Run(context.Background())
	} else {
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
// over stdio.
func TestInteropStdio(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), stdioServerEnv+"=1")
	cmd.Stderr = os.Stderr
	// The SDK's handlers send sampling and elicitation requests, which
	// only the session era allows: pin 2025-11-25.
	c := connect(t, &client.CommandTransport{Cmd: cmd}, handlers(&client.Options{Version: mcp.Version20251125}))
	if c.ServerInfo().Name != "go-sdk-server" {
		t.Errorf("server info %+v", c.ServerInfo())
	}
	driveServer(t, c, serverQuirks{noResume: true})
}

// TestInteropStdioDiscover reaches the same stdio server in the
// stateless revision, found with server/discover.
func TestInteropStdioDiscover(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), stdioServerEnv+"=1")
	cmd.Stderr = os.Stderr
	c := connect(t, &client.CommandTransport{Cmd: cmd}, nil)
	if c.Version() != mcp.Version20260728 {
		t.Fatalf("version %s, want %s", c.Version(), mcp.Version20260728)
	}
	res, err := c.CallTool(t.Context(), "greet", map[string]string{"name": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "Hello, Ada" {
		t.Errorf("greet: %q", got)
	}
}
