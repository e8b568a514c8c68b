package integration

//lint:file-ignore SA1019 the interop tests exercise the go-sdk's sampling, logging and roots, deprecated on 2026-07-28 but still served

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/specter-mcp/specter/mcp"
)

// The official Go SDK client starts the fixture command with its
// CommandTransport, as a desktop client would, in each era it speaks:
// a 2025-11-25 session (server-to-client requests over the pipe) and
// 2026-07-28 (server/discover, input_required rounds). It lists the
// tools, calls one, gets progress, log messages and list-changed
// notifications, and answers a sampling, an elicitation and a roots
// request; then it closes stdin, and the server exits on its own.
func TestStdioGoSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Go SDK client; skipped with -short")
	}
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) { testStdioGoSDK(t, version) })
	}
}

func testStdioGoSDK(t *testing.T, version string) {
	var mu sync.Mutex
	var progress []sdk.ProgressNotificationParams
	var elicits, samples, toolsChanged int
	var logs []string
	client := sdk.NewClient(&sdk.Implementation{Name: "specter-stdio", Version: "1.0.0"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			mu.Lock()
			elicits++
			mu.Unlock()
			return &sdk.ElicitResult{Action: "accept", Content: sdkElicitAnswer}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			mu.Lock()
			samples++
			mu.Unlock()
			return &sdk.CreateMessageResult{Role: "assistant", Model: "stdio-model", Content: &sdk.TextContent{Text: sdkSampleAnswer}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, fmt.Sprint(req.Params.Data))
			mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			mu.Lock()
			toolsChanged++
			mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, *req.Params)
			mu.Unlock()
		},
	})
	client.AddRoots(&sdk.Root{URI: "file:///srv/notes", Name: "notes"})
	cmd := exec.Command(stdioFixtureBin(t), "-stdio")
	cmd.Env = append(os.Environ(), leakCheck)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	var opts *sdk.ClientSessionOptions
	if version != mcp.Version20260728 {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	c := ctx(t)
	cs, err := client.Connect(c, &sdk.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("Connect: %v\nstderr:\n%s", err, stderr)
	}
	closed := false
	defer func() {
		if !closed {
			_ = cs.Close()
		}
	}()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %q, want %s", got, version)
	}

	var names []string
	for tool, err := range cs.Tools(c, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tool.Name)
	}
	for _, want := range []string{"test_simple_text", "test_tool_with_progress", "test_elicitation", "test_sampling"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s (listed %d tools)", want, len(names))
		}
	}

	res, err := cs.CallTool(c, &sdk.CallToolParams{Name: "test_simple_text"})
	if err != nil || sdkText(t, res.Content) != "This is a simple text response for testing." {
		t.Fatalf("test_simple_text: %v %s", err, mustJSON(res))
	}

	p := &sdk.CallToolParams{Name: "test_tool_with_progress"}
	p.SetProgressToken(sdkProgressToken)
	if res, err = cs.CallTool(c, p); err != nil || sdkText(t, res.Content) != `"`+sdkProgressToken+`"` {
		t.Fatalf("test_tool_with_progress: %v %s", err, mustJSON(res))
	}
	eventually(t, "3 progress notifications arrived", func() bool { mu.Lock(); defer mu.Unlock(); return len(progress) >= 3 })
	mu.Lock()
	for i, want := range []float64{0, 50, 100} {
		if n := progress[i]; n.ProgressToken != sdkProgressToken || n.Progress != want || n.Total != 100 {
			t.Errorf("progress %d = %s", i, mustJSON(n))
		}
	}
	mu.Unlock()

	res, err = cs.CallTool(c, &sdk.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": sdkElicitMessage}})
	if err != nil || res.IsError {
		t.Fatalf("test_elicitation: %v %s", err, mustJSON(res))
	}
	if got, want := sdkText(t, res.Content), "User response: action=accept, content="+mustJSON(sdkElicitAnswer); got != want {
		t.Errorf("test_elicitation = %q, want %q", got, want)
	}
	res, err = cs.CallTool(c, &sdk.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": sdkSamplePrompt}})
	if err != nil || sdkText(t, res.Content) != "LLM response: "+sdkSampleAnswer {
		t.Fatalf("test_sampling: %v %s", err, mustJSON(res))
	}
	// Log messages while a tool runs (on 2026-07-28 the request asks for
	// them in its _meta), and a tools/list_changed notification between
	// requests: on the session's stream, or on the subscriptions/listen
	// stream the SDK opens on 2026-07-28.
	p = &sdk.CallToolParams{Name: "test_tool_with_logging"}
	if version == mcp.Version20260728 {
		p.Meta = sdk.Meta{"io.modelcontextprotocol/logLevel": "info"}
	}
	if res, err = cs.CallTool(c, p); err != nil || res.IsError {
		t.Fatalf("test_tool_with_logging: %v %s", err, mustJSON(res))
	}
	eventually(t, "3 log messages arrived", func() bool { mu.Lock(); defer mu.Unlock(); return len(logs) >= 3 })
	if res, err = cs.CallTool(c, &sdk.CallToolParams{Name: "test_trigger_tool_change"}); err != nil || res.IsError {
		t.Fatalf("test_trigger_tool_change: %v %s", err, mustJSON(res))
	}
	eventually(t, "tools/list_changed arrived", func() bool { mu.Lock(); defer mu.Unlock(); return toolsChanged > 0 })
	mu.Lock()
	if !slices.Equal(logs, []string{"Tool execution started", "Tool processing data", "Tool execution completed"}) {
		t.Errorf("log messages: %q", logs)
	}
	mu.Unlock()

	// The roots, asked of the client over the pipe or through an
	// input_required round, which the SDK answers on its own.
	res, err = cs.CallTool(c, &sdk.CallToolParams{Name: "test_input_required_result_list_roots"})
	if err != nil || sdkText(t, res.Content) != "The client has 1 root(s)" {
		t.Fatalf("test_input_required_result_list_roots: %v %s", err, mustJSON(res))
	}
	mu.Lock()
	if elicits != 1 || samples != 1 {
		t.Errorf("the client answered %d elicitations and %d samplings, want 1 each", elicits, samples)
	}
	mu.Unlock()

	closed = true
	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() || !exitedOnEOF(stderr.String()) || !noGoroutineLeft(stderr.String()) {
		t.Errorf("the fixture did not exit cleanly on EOF: %v\nstderr:\n%s", cmd.ProcessState, stderr)
	}
	if strings.Contains(stderr.String(), `"level":"error"`) {
		t.Errorf("the fixture logged errors:\n%s", stderr)
	}
}
