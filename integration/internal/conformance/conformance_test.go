package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/specter-mcp/specter/integration/internal/module"
)

// Output of @modelcontextprotocol/conformance 0.2.0-alpha.12 as observed,
// shortened. Check lines are colored even when not on a terminal.
const (
	scenarioPass = "Running client scenario 'ping' against server: http://127.0.0.1:18080/mcp\n" +
		"Checks:\n" +
		"\x1b[90m2026-11-22T08:07:37.694Z\x1b[0m [ping             ] \x1b[32mSUCCESS\x1b[0m Server responds to ping requests\n" +
		"\x1b[90m2026-11-22T08:07:37.711Z\x1b[0m [wire-schema-valid] \x1b[32mSUCCESS\x1b[0m Every JSON-RPC message the implementation sent is valid per the spec JSON schema for the negotiated spec version\n" +
		"\n" +
		"Test Results:\n" +
		"Passed: 2/2, 0 failed, 0 warnings\n"

	scenarioWarning = `Running client scenario 'server-session-lifecycle' against server: http://127.0.0.1:18080/mcp
Checks:
2026-11-22T08:07:38.945Z [server-session-initialized-accepted  ] SUCCESS Server accepts the initialized notification on the issued session ID with a 2xx response
2026-11-22T08:07:38.947Z [server-session-delete-accepted       ] WARNING Server accepts HTTP DELETE on the issued session ID
2026-11-22T08:07:38.947Z [server-session-terminated-returns-404] SKIPPED Server returns HTTP 404 for requests bearing a terminated session ID

Test Results:
Passed: 1/1, 0 failed, 1 warnings
`

	scenarioFailure = `Running client scenario 'tools-list' against server: http://127.0.0.1:18080/mcp
Checks:
2026-11-22T08:07:40.071Z [tools-list       ] FAILURE Server lists available tools with valid structure
2026-11-22T08:07:40.072Z [tools-name-format] SUCCESS Tool names SHOULD be 1-128 characters and match ^[A-Za-z0-9_.-]+$
2026-11-22T08:07:40.078Z [wire-schema-valid] SUCCESS Every JSON-RPC message the implementation sent is valid per the spec JSON schema for the negotiated spec version

Test Results:
Passed: 2/3, 1 failed, 0 warnings

=== Failed Checks ===

  - ToolsList: Server lists available tools with valid structure
    Error: Tool 0: missing description

Test listing available tools.
`

	// A suite run prints no checks, and no warnings: server-session-lifecycle
	// had one here.
	suiteRun = `Running requirements 2025-11-25 (33 scenarios) against http://127.0.0.1:18080/mcp


=== Running scenario: server-initialize ===
Running client scenario 'server-initialize' against server: http://127.0.0.1:18080/mcp

=== Running scenario: ping ===
Running client scenario 'ping' against server: http://127.0.0.1:18080/mcp


=== SUMMARY ===
✓ server-initialize: 3 passed, 0 failed
✓ ping: 2 passed, 0 failed
✗ tools-list: 2 passed, 1 failed
✓ server-session-lifecycle: 1 passed, 0 failed
✗ json-schema-2020-12: 1 passed, 1 failed

Total: 9 passed, 2 failed

Not scored for 2025-11-25: 2 scenario(s) run, 1 failing. These do not affect conformance.
  ✓ server-session-lifecycle (added-after-release)
  ✗ json-schema-2020-12 (pending)
`

	skipped = "SKIPPED: scenario 'tasks-lifecycle' is not applicable at spec version 2026-07-28 (extension scenario, not on the spec timeline). Use --force to run it anyway.\n"

	badArgs = "Validation error:\n  url: Invalid server URL\n"
)

func TestParseOutput(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want summary
		ok   bool
	}{
		{"scenario pass", scenarioPass, summary{2, 0, 0}, true},
		{"scenario warning", scenarioWarning, summary{1, 0, 1}, true},
		{"scenario failure", scenarioFailure, summary{2, 1, 0}, true},
		{"suite", suiteRun, summary{9, 2, 0}, true},
		{"client suite", "Total: 5 passed, 0 failed, 2 warnings, 1 skipped\n", summary{5, 0, 2}, true},
		{"crlf", strings.ReplaceAll(scenarioWarning, "\n", "\r\n"), summary{1, 0, 1}, true},
		{"skipped", skipped, summary{}, false},
		{"bad arguments", badArgs, summary{}, false},
		{"empty", "", summary{}, false},
	}
	for _, tc := range tests {
		got, ok := parseOutput(stripANSI(tc.out))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: parseOutput = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestStripANSI(t *testing.T) {
	got := stripANSI("\x1b[90m2026-11-22T08:07:37.694Z\x1b[0m [ping] \x1b[33mWARNING\x1b[0m x \x1b[1mbold\x1b[0m")
	if want := "2026-11-22T08:07:37.694Z [ping] WARNING x bold"; got != want {
		t.Errorf("stripANSI = %q, want %q", got, want)
	}
}

func TestReadChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "checks.json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("server-ping-2026-11-22T08-07-43-607Z", `[{"id":"ping","name":"Ping","status":"SUCCESS"}]`)
	write("server-server-session-lifecycle-2026-11-22T08-07-44-145Z", `[
		{"id":"server-session-initialized-accepted","status":"SUCCESS","details":{"statusCode":202}},
		{"id":"server-session-delete-accepted","status":"WARNING","errorMessage":"Expected 2xx, 404, or 405 for DELETE, got 500."}]`)
	write("server-ping-2026-11-21T00-00-00-000Z", `[{"id":"old","status":"FAILURE"}]`) // an earlier run
	write("unrelated", `[{"id":"x","status":"FAILURE"}]`)
	write("auth/metadata-default-2026-11-22T08-07-43-607Z", `[{"id":"token-request","status":"SUCCESS"}]`) // a client scenario

	checks, err := readChecks(dir, "server-", map[string]bool{"server-ping-2026-11-21T00-00-00-000Z": true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range checks {
		got = append(got, c.Scenario+":"+c.ID+"="+c.Status)
	}
	want := []string{
		"ping:ping=SUCCESS",
		"server-session-lifecycle:server-session-initialized-accepted=SUCCESS",
		"server-session-lifecycle:server-session-delete-accepted=WARNING",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("readChecks = %v, want %v", got, want)
	}
	r := &Result{Checks: checks, Warnings: 1}
	if p := r.Problems(); len(p) != 1 || p[0].ID != "server-session-delete-accepted" {
		t.Errorf("Problems() = %v", p)
	}
	if r.Clean() {
		t.Error("Clean() with a warning = true")
	}

	write("server-bad-2026-11-22T08-07-44-145Z", `{`)
	if _, err := readChecks(dir, "server-", nil); err == nil {
		t.Error("readChecks with a corrupt checks.json succeeded")
	}
}

func TestOutputDir(t *testing.T) {
	tests := []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{"--scenario", "ping"}, "", false},
		{[]string{"-o", "out"}, "out", true},
		{[]string{"--suite", "all", "--output-dir", "/tmp/x"}, "/tmp/x", true},
		{[]string{"--output-dir=res"}, "res", true},
		{[]string{"-o"}, "", false},
	}
	for _, tc := range tests {
		got, ok := outputDir(tc.args)
		if got != tc.want || ok != tc.ok {
			t.Errorf("outputDir(%q) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRunWithoutHarness(t *testing.T) {
	_, err := run(context.Background(), t.TempDir(), []string{"server", "--url", "http://127.0.0.1:1/mcp"}, "server-", nil)
	if err == nil || !strings.Contains(err.Error(), "npm ci --prefix integration/conformance") {
		t.Errorf("run without node_modules: err = %v, want one telling to run npm ci", err)
	}
}

// The tests below run the real suite; they need `npm ci --prefix
// integration/conformance` (make test runs it).

func requireHarness(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the conformance suite")
	}
	root, err := module.Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, harnessDir, "node_modules", ".bin", "conformance")); err != nil {
		t.Skipf("conformance suite not installed; run `npm ci --prefix %s`", harnessDir)
	}
}

// stubServer is just enough of a legacy-wire MCP server for the ping and
// session-lifecycle scenarios. DELETE answers deleteStatus.
func stubServer(t *testing.T, deleteStatus int) string {
	var sessions atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		case http.MethodDelete:
			w.WriteHeader(deleteStatus)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.ID == nil { // a notification or a response
			w.WriteHeader(http.StatusAccepted)
			return
		}
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", strconv.FormatInt(sessions.Add(1), 10))
			resp["result"] = map[string]any{
				"protocolVersion": "2025-11-25",
				"capabilities":    map[string]any{},
				"serverInfo":      map[string]any{"name": "stub", "version": "0.0.0"},
			}
		case "ping":
			resp["result"] = map[string]any{}
		default:
			resp["error"] = map[string]any{"code": -32601, "message": "Method not found"}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func TestRunScenario(t *testing.T) {
	requireHarness(t)
	res, err := Run(context.Background(), stubServer(t, http.StatusOK), "--scenario", "ping")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Clean() || res.Passed != 2 {
		t.Errorf("ping: %+v, want clean with 2 passed; problems %v; output:\n%s", res, res.Problems(), res.Output)
	}
	if len(res.Checks) != 2 || res.Checks[0].Scenario != "ping" {
		t.Errorf("ping checks = %v", res.Checks)
	}
	if strings.Contains(res.Output, "\x1b[") {
		t.Error("output has color codes")
	}
}

func TestRunCountsSuiteWarnings(t *testing.T) {
	requireHarness(t)
	// A 500 on DELETE is a WARNING the suite's summary does not show.
	res, err := Run(context.Background(), stubServer(t, http.StatusInternalServerError), "--requirements", "2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 1 || res.Failed == 0 || res.Passed == 0 {
		t.Errorf("stub server: exit %d, %d passed, %d failed; want exit 1 and both counts", res.ExitCode, res.Passed, res.Failed)
	}
	found := false
	for _, c := range res.Problems() {
		found = found || c.Scenario == "server-session-lifecycle" && c.ID == "server-session-delete-accepted" && c.Status == "WARNING"
	}
	if !found || res.Warnings == 0 {
		t.Errorf("warnings = %d, problems %v; want the DELETE warning\n%s", res.Warnings, res.Problems(), res.Output)
	}
}

// Run ends the suite when its context ends, the suite's own processes
// included. The context is cancelled once the suite's request has
// arrived, not after a guessed time; the server never answers, and the
// suite's own timeout is a day, so only killing it ends it.
func TestRunTimeout(t *testing.T) {
	requireHarness(t)
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select { // never answer
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-arrived:
			cancel()
		case <-ctx.Done():
		}
	}()
	_, err := Run(ctx, srv.URL+"/mcp", "--scenario", "ping", "--timeout", "86400000")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run against a hanging server: err = %v, want Canceled", err)
	}
	// Run returned once every process writing to its output had exited,
	// so none of the suite's may still name the server.
	if left := processesNaming(t, srv.URL); len(left) > 0 {
		t.Errorf("the suite's processes outlived Run: %q", left)
	}
}

// processesNaming returns the command lines that contain s, of the
// processes still running (a process that has exited has none).
func processesNaming(t *testing.T, s string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		return nil // no /proc to read
	}
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(s)) {
			found = append(found, string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
	}
	return found
}

func TestReadClientChecks(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"tools_call-2026-11-22T08-07-43-607Z":            `[{"id":"tool-add-numbers","status":"SUCCESS"}]`,
		"auth/metadata-default-2026-11-22T08-07-43-607Z": `[{"id":"token-request","status":"SUCCESS"}]`,
	} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "checks.json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checks, err := readChecks(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range checks {
		got = append(got, c.Scenario+":"+c.ID)
	}
	if want := "auth/metadata-default:token-request tools_call:tool-add-numbers"; strings.Join(got, " ") != want {
		t.Errorf("readChecks = %v, want %s", got, want)
	}
}
