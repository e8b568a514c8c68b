package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcp"
)

// serve runs the conformance fixture on a loopback port.
func serve(t *testing.T) string {
	t.Helper()
	r := fixture.New(specter.Logger(zerolog.Nop()))
	mux := http.NewServeMux()
	mux.Handle("/mcp", r.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
		srv.Close()
	})
	return srv.URL + "/mcp"
}

// handlers answer input requests the way a test user would.
func handlers(opts *client.Options) *client.Options {
	if opts == nil {
		opts = &client.Options{}
	}
	opts.Elicitation = func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		content := map[string]any{}
		var s struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(p.RequestedSchema, &s)
		for _, name := range s.Required {
			switch s.Properties[name].Type {
			case "string":
				content[name] = "Ada"
			case "boolean":
				content[name] = true
			}
		}
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	}
	opts.Sampling = func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContent{mcp.Text("Paris")}, Model: "test-model"}, nil
	}
	opts.Roots = func(context.Context) ([]mcp.Root, error) {
		return []mcp.Root{{URI: "file:///work", Name: "work"}}, nil
	}
	return opts
}

func eras(t *testing.T, f func(t *testing.T, version string)) {
	for _, v := range []string{"", mcp.Version20251125, mcp.Version20250618} {
		name := v
		if name == "" {
			name = "negotiated"
		}
		t.Run(name, func(t *testing.T) { f(t, v) })
	}
}

func connect(t *testing.T, tr client.Transport, opts *client.Options) *client.Client {
	t.Helper()
	c, err := client.Connect(t.Context(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestConnectNegotiates(t *testing.T) {
	url := serve(t)
	eras(t, func(t *testing.T, v string) {
		c := connect(t, &client.HTTPTransport{URL: url}, &client.Options{Version: v})
		want := v
		if want == "" {
			want = mcp.Version20260728
		}
		if c.Version() != want {
			t.Fatalf("version %q, want %q", c.Version(), want)
		}
		if c.ServerCapabilities().Tools == nil {
			t.Errorf("no tools capability: %+v", c.ServerCapabilities())
		}
		if err := c.Ping(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestToolsPromptsResources(t *testing.T) {
	url := serve(t)
	eras(t, func(t *testing.T, v string) {
		ctx := t.Context()
		c := connect(t, &client.HTTPTransport{URL: url}, &client.Options{Version: v})
		n := 0
		for tool, err := range c.Tools(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if tool.Name == "" {
				t.Fatal("a tool without a name")
			}
			n++
		}
		if n < 10 {
			t.Fatalf("%d tools", n)
		}
		res, err := c.CallTool(ctx, "test_simple_text", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "This is a simple text response for testing." {
			t.Errorf("text %q", got)
		}
		res, err = c.CallTool(ctx, "test_error_handling", nil)
		if err != nil || !res.IsError {
			t.Fatalf("error tool: %v %+v", err, res)
		}
		mixed, err := c.CallTool(ctx, "test_multiple_content_types", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(mixed.Content) != 3 {
			t.Fatalf("content %d", len(mixed.Content))
		}
		if _, ok := mixed.Content[1].(*mcp.ImageContent); !ok {
			t.Errorf("second content is %T", mixed.Content[1])
		}
		p, err := c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "a", "arg2": "b"})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Messages) != 1 || !strings.Contains(p.Messages[0].Content.(*mcp.TextContent).Text, "arg1='a'") {
			t.Errorf("prompt %+v", p.Messages)
		}
		rr, err := c.ReadResource(ctx, "test://template/42/data")
		if err != nil {
			t.Fatal(err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].Text == nil || !strings.Contains(*rr.Contents[0].Text, "42") {
			t.Errorf("read %+v", rr.Contents)
		}
		_, err = c.CallTool(ctx, "no_such_tool", nil)
		if err == nil {
			t.Fatal("unknown tool: no error")
		}
	})
}

func TestInputHandlers(t *testing.T) {
	url := serve(t)
	eras(t, func(t *testing.T, v string) {
		ctx := t.Context()
		c := connect(t, &client.HTTPTransport{URL: url}, handlers(&client.Options{Version: v}))
		res, err := c.CallTool(ctx, "test_sampling", map[string]any{"prompt": "Capital of France?"})
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "LLM response: Paris" {
			t.Errorf("sampling %q", got)
		}
		res, err = c.CallTool(ctx, "test_elicitation", map[string]any{"message": "Who?"})
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); !strings.Contains(got, `"username":"Ada"`) {
			t.Errorf("elicitation %q", got)
		}
		res, err = c.CallTool(ctx, "test_elicitation_sep1034_defaults", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); !strings.Contains(got, `"age":30`) || !strings.Contains(got, `"status":"active"`) {
			t.Errorf("defaults %q", got)
		}
		res, err = c.CallTool(ctx, "test_input_required_result_multiple_inputs", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "Paris, Ada (1 roots)" {
			t.Errorf("multiple inputs %q", got)
		}
		res, err = c.CallTool(ctx, "test_input_required_result_multi_round", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "Ada likes Ada" {
			t.Errorf("multi round %q", got)
		}
	})
}

func TestProgressAndLogs(t *testing.T) {
	url := serve(t)
	eras(t, func(t *testing.T, v string) {
		var mu sync.Mutex
		var logs []mcp.LoggingMessageParams
		c := connect(t, &client.HTTPTransport{URL: url}, &client.Options{Version: v, LogLevel: mcp.LevelDebug, OnLog: func(p mcp.LoggingMessageParams) {
			mu.Lock()
			logs = append(logs, p)
			mu.Unlock()
		}})
		var progress []float64
		_, err := c.CallTool(t.Context(), "test_tool_with_progress", nil, client.WithProgress(func(p mcp.ProgressParams) {
			mu.Lock()
			progress = append(progress, p.Progress)
			mu.Unlock()
		}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallTool(t.Context(), "test_tool_with_logging", nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(progress) != 3 || progress[2] != 100 {
			t.Errorf("progress %v", progress)
		}
		if len(logs) == 0 {
			t.Errorf("no log messages")
		}
	})
}

func TestInMemory(t *testing.T) {
	r := fixture.New(specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	eras(t, func(t *testing.T, v string) {
		c := connect(t, client.InMemory(r.Handler()), handlers(&client.Options{Version: v}))
		res, err := c.CallTool(t.Context(), "test_input_required_result_elicitation", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "Hello, Ada!" {
			t.Errorf("got %q", got)
		}
	})
}
