package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The official TypeScript SDK's StdioClientTransport starts the fixture
// command and drives it in a session (the SDK speaks up to 2025-11-25):
// tools, a call, progress, logging, sampling, elicitation and roots over
// the pipe, then a close that the server answers by exiting on its own.
func TestStdioTypeScriptSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the TypeScript SDK on Node; skipped with -short")
	}
	node := filepath.Join("conformance", "node_modules", ".bin", "node") // the pinned Node
	if _, err := os.Stat(node); err != nil {
		var lerr error
		if node, lerr = exec.LookPath("node"); lerr != nil {
			t.Skip("node is not installed")
		}
	}
	if _, err := os.Stat(filepath.Join("conformance", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the TypeScript SDK is not installed (%v); run `npm ci --prefix integration/conformance` in the module root", err)
	}
	bin := stdioFixtureBin(t)
	cmd := exec.CommandContext(ctx(t), node, filepath.Join("conformance", "stdio-client.mjs"), bin, "-stdio")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s\n%s", err, out, &stderr)
	}
	var r struct {
		Error          string `json:"error"`
		Server         struct{ Name string }
		Tools          []string         `json:"tools"`
		Simple         string           `json:"simple"`
		Progress       []map[string]any `json:"progress"`
		WireProgress   []map[string]any `json:"wireProgress"`
		ProgressResult string           `json:"progressResult"`
		Elicitations   []string         `json:"elicitations"`
		Elicitation    string           `json:"elicitation"`
		Samplings      []string         `json:"samplings"`
		Sampling       string           `json:"sampling"`
		Logs           []string         `json:"logs"`
		Logging        string           `json:"logging"`
		RootsAsked     int              `json:"rootsAsked"`
		Roots          string           `json:"roots"`
		CloseMs        int              `json:"closeMs"`
		ExitCode       *int             `json:"exitCode"`
		Signal         *string          `json:"signal"`
		Stderr         string           `json:"stderr"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the client's report %q: %v", out, err)
	}
	if r.Error != "" {
		t.Fatalf("the client failed: %s\nserver stderr:\n%s", r.Error, r.Stderr)
	}
	if r.Server.Name != "mcp-conformance-test-server" {
		t.Errorf("server = %+v", r.Server)
	}
	for _, want := range []string{"test_simple_text", "test_tool_with_progress", "test_elicitation", "test_sampling"} {
		if !slices.Contains(r.Tools, want) {
			t.Errorf("tools/list lacks %s (listed %d)", want, len(r.Tools))
		}
	}
	if r.Simple != "This is a simple text response for testing." {
		t.Errorf("test_simple_text = %q", r.Simple)
	}
	// All three notifications crossed the pipe before the result, and the
	// SDK passed all three on before the result, though it dispatches
	// notifications a tick after the answers it reads with them (see the
	// script): the server lets the client read them first (issue 19,
	// item 5: it passed on 2).
	if len(r.WireProgress) != 3 || r.WireProgress[2]["progress"] != 100.0 || r.WireProgress[2]["total"] != 100.0 || r.ProgressResult == "" {
		t.Errorf("progress on the pipe = %v, result %q", r.WireProgress, r.ProgressResult)
	}
	if len(r.Progress) != 3 || r.Progress[0]["progress"] != 0.0 || r.Progress[2]["progress"] != 100.0 || r.ProgressResult != fmt.Sprint(r.WireProgress[0]["progressToken"]) {
		t.Errorf("progress the SDK passed on = %v, result %q; want all three", r.Progress, r.ProgressResult)
	}
	if len(r.Elicitations) != 1 || r.Elicitations[0] != "Who are you?" ||
		r.Elicitation != `User response: action=accept, content={"email":"ts@example.com","username":"ts"}` {
		t.Errorf("elicitation: asked %q, answered %q", r.Elicitations, r.Elicitation)
	}
	if len(r.Samplings) != 1 || r.Samplings[0] != "Capital of France?" || r.Sampling != "LLM response: Paris" {
		t.Errorf("sampling: asked %q, answered %q", r.Samplings, r.Sampling)
	}
	// The call's log messages, in order (read once the later calls ran).
	if !slices.Equal(r.Logs, []string{"Tool execution started", "Tool processing data", "Tool execution completed"}) ||
		r.Logging != "Tool with logging executed successfully" {
		t.Errorf("logging: %q, result %q", r.Logs, r.Logging)
	}
	if r.RootsAsked != 1 || r.Roots != "The client has 1 root(s)" {
		t.Errorf("roots: asked %d times, answered %q", r.RootsAsked, r.Roots)
	}
	// The SDK sends SIGTERM 2 s after it closes stdin: the server must
	// have exited before, on EOF.
	if r.ExitCode == nil || *r.ExitCode != 0 || r.Signal != nil || !exitedOnEOF(r.Stderr) {
		t.Errorf("exit code %v, signal %v, close took %d ms; server stderr:\n%s", r.ExitCode, r.Signal, r.CloseMs, r.Stderr)
	}
	if strings.Contains(r.Stderr, `"level":"error"`) {
		t.Errorf("the server logged errors:\n%s", r.Stderr)
	}
}
