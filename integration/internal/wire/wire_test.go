package wire

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var legacyVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// mustLoad fails the test rather than skipping it: without the schemas nothing
// here is checked, and CI always has them.
func mustLoad(t *testing.T, version string) *Validator {
	t.Helper()
	v, err := Load(version)
	if err != nil {
		t.Fatalf("Load(%q): %v", version, err)
	}
	if got := v.Version(); got != version {
		t.Fatalf("Version() = %q, want %q", got, version)
	}
	return v
}

// Messages valid in every version before 2026-07-28.
var legacyValid = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"specter","version":"1.0.0"}}}`,
	`{"jsonrpc":"2.0","id":"a-1","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"k":"v"},"anything":[1,2]}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":{"uri":"test://x"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"Tool execution started"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":50,"total":100}}`,
	`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"maxTokens":100,"messages":[{"content":{"type":"text","text":"Test prompt for sampling"},"role":"user"}]}}`,
	`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
}

// Messages invalid in every version.
var alwaysInvalid = []struct{ name, msg string }{
	{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"result":{}}`},
	{"no jsonrpc", `{"id":1,"result":{}}`},
	{"boolean id", `{"jsonrpc":"2.0","id":true,"result":{}}`},
	{"fractional id", `{"jsonrpc":"2.0","id":1.5,"result":{}}`},
	{"result not an object", `{"jsonrpc":"2.0","id":1,"result":"ok"}`},
	{"error without message", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}`},
	{"error code not an integer", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`},
	{"neither result nor error", `{"jsonrpc":"2.0","id":1}`},
	{"progress without token", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":50}}`},
	{"unknown log level", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"verbose","data":"x"}}`},
	{"not JSON", `{"jsonrpc":"2.0",`},
	{"trailing data", `{"jsonrpc":"2.0","id":1,"result":{}} {}`},
	{"not an object", `42`},
}

func TestLegacyMessages(t *testing.T) {
	for _, version := range legacyVersions {
		t.Run(version, func(t *testing.T) {
			v := mustLoad(t, version)
			for _, msg := range legacyValid {
				if err := v.Validate([]byte(msg)); err != nil {
					t.Errorf("Validate(%s): %v", msg, err)
				}
			}
			for _, tc := range alwaysInvalid {
				if err := v.Validate([]byte(tc.msg)); err == nil {
					t.Errorf("%s: Validate(%s) succeeded, want error", tc.name, tc.msg)
				}
			}
		})
	}
}

// Result types checked with ValidateAs, the same in every legacy version.
var legacyResults = []struct {
	name, def, value string
	valid            bool
}{
	{"initialize", "InitializeResult", `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, true},
	{"initialize without serverInfo", "InitializeResult", `{"protocolVersion":"2025-11-25","capabilities":{}}`, false},
	{"initialize without capabilities", "InitializeResult", `{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}`, false},
	{"text content", "CallToolResult", `{"content":[{"type":"text","text":"This is a simple text response for testing."}]}`, true},
	{"tool error", "CallToolResult", `{"isError":true,"content":[{"type":"text","text":"failed"}]}`, true},
	{"text content without text", "CallToolResult", `{"content":[{"type":"text"}]}`, false},
	{"content missing", "CallToolResult", `{}`, false},
	{"image", "CallToolResult", `{"content":[{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==","mimeType":"image/png"}]}`, true},
	{"image with bad base64", "CallToolResult", `{"content":[{"type":"image","data":"not base64!","mimeType":"image/png"}]}`, false},
	{"image with bad padding", "CallToolResult", `{"content":[{"type":"image","data":"iVBORw0KGgo","mimeType":"image/png"}]}`, false},
	{"embedded resource", "CallToolResult", `{"content":[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"x"}}]}`, true},
	{"embedded resource with relative uri", "CallToolResult", `{"content":[{"type":"resource","resource":{"uri":"embedded","text":"x"}}]}`, false},
	{"tools", "ListToolsResult", `{"tools":[{"name":"test_simple_text","description":"d","inputSchema":{"type":"object"}}]}`, true},
	{"tool without inputSchema", "ListToolsResult", `{"tools":[{"name":"test_simple_text"}]}`, false},
	{"tool schema not an object", "ListToolsResult", `{"tools":[{"name":"t","inputSchema":{"type":"string"}}]}`, false},
}

func TestLegacyResults(t *testing.T) {
	for _, version := range legacyVersions {
		t.Run(version, func(t *testing.T) {
			v := mustLoad(t, version)
			for _, tc := range legacyResults {
				err := v.ValidateAs(tc.def, []byte(tc.value))
				if tc.valid && err != nil {
					t.Errorf("%s: ValidateAs(%s, %s): %v", tc.name, tc.def, tc.value, err)
				}
				if !tc.valid && err == nil {
					t.Errorf("%s: ValidateAs(%s, %s) succeeded, want error", tc.name, tc.def, tc.value)
				}
			}
		})
	}
}

func TestBatch(t *testing.T) {
	// Only 2025-03-26 allows JSON-RPC batches.
	batch := []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	if err := mustLoad(t, "2025-03-26").Validate(batch); err != nil {
		t.Errorf("2025-03-26 batch: %v", err)
	}
	bad := []byte(`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}]`)
	if err := mustLoad(t, "2025-03-26").Validate(bad); err == nil {
		t.Errorf("2025-03-26 batch with invalid progress notification succeeded")
	}
	if err := mustLoad(t, "2025-06-18").Validate(batch); err == nil {
		t.Errorf("2025-06-18 batch succeeded, want error")
	}
}

func TestURLElicitationRequiredError(t *testing.T) {
	// -32042 is pinned to a specific error shape from 2025-11-25 on.
	v := mustLoad(t, "2025-11-25")
	bad := `{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"m"}}`
	if err := v.Validate([]byte(bad)); err == nil {
		t.Errorf("Validate(%s) succeeded, want error", bad)
	}
	if err := mustLoad(t, "2025-06-18").Validate([]byte(bad)); err != nil {
		t.Errorf("2025-06-18 Validate(%s): %v", bad, err)
	}
}

func TestStatelessMessages(t *testing.T) {
	v := mustLoad(t, "2026-07-28")
	valid := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, sep-2243!"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"opaque"}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32021,"message":"Missing capability","data":{"requiredCapabilities":{"sampling":{}}}}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"v999.0.0"}}}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":-32020,"message":"Header mismatch"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":0,"total":100}}`,
	}
	for _, msg := range valid {
		if err := v.Validate([]byte(msg)); err != nil {
			t.Errorf("Validate(%s): %v", msg, err)
		}
	}
	invalid := []struct{ name, msg string }{
		{"result without resultType", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"legacy initialize result", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`},
		{"-32021 without data", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"m"}}`},
		{"-32021 with array", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"m","data":{"requiredCapabilities":["sampling"]}}}`},
		{"-32022 without requested", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"]}}}`},
		{"input_required with bad state", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":5}}`},
	}
	for _, tc := range append(invalid, alwaysInvalid...) {
		if err := v.Validate([]byte(tc.msg)); err == nil {
			t.Errorf("%s: Validate(%s) succeeded, want error", tc.name, tc.msg)
		}
	}
}

func TestStatelessResults(t *testing.T) {
	v := mustLoad(t, "2026-07-28")
	tests := []struct {
		name, def, value string
		valid            bool
	}{
		{"discover", "DiscoverResult", `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`, true},
		{"discover without caching fields", "DiscoverResult", `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{}}`, false},
		{"tools", "ListToolsResult", `{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[{"name":"greet","description":"d","inputSchema":{"type":"object"}}]}`, true},
		{"tools without ttlMs", "ListToolsResult", `{"resultType":"complete","cacheScope":"public","tools":[]}`, false},
		{"tools with bad cacheScope", "ListToolsResult", `{"resultType":"complete","ttlMs":0,"cacheScope":"shared","tools":[]}`, false},
		{"call", "CallToolResult", `{"resultType":"complete","content":[{"type":"text","text":"t"}]}`, true},
		{"call without resultType", "CallToolResult", `{"content":[{"type":"text","text":"t"}]}`, false},
		{"text content without text", "CallToolResult", `{"resultType":"complete","content":[{"type":"text"}]}`, false},
		{"empty", "EmptyResult", `{"resultType":"complete"}`, true},
		{"empty without resultType", "EmptyResult", `{}`, false},
	}
	for _, tc := range tests {
		err := v.ValidateAs(tc.def, []byte(tc.value))
		if tc.valid && err != nil {
			t.Errorf("%s: ValidateAs(%s, %s): %v", tc.name, tc.def, tc.value, err)
		}
		if !tc.valid && err == nil {
			t.Errorf("%s: ValidateAs(%s, %s) succeeded, want error", tc.name, tc.def, tc.value)
		}
	}

	// initialize is gone from the stateless wire, and so is its result.
	if v.Has("InitializeResult") {
		t.Errorf("2026-07-28 defines InitializeResult")
	}
	err := v.ValidateAs("InitializeResult", []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "no definition") {
		t.Errorf("ValidateAs(InitializeResult) = %v, want a missing-definition error", err)
	}
}

func TestResultDef(t *testing.T) {
	tests := []struct {
		version, method, want string
		ok                    bool
	}{
		{"2025-11-25", "tools/call", "CallToolResult", true},
		{"2025-11-25", "initialize", "InitializeResult", true},
		{"2025-11-25", "tools/list", "ListToolsResult", true},
		{"2025-11-25", "ping", "", false},
		{"2025-11-25", "no/such", "", false},
		{"2026-07-28", "server/discover", "DiscoverResult", true},
		{"2026-07-28", "initialize", "", false},
		{"2024-11-05", "completion/complete", "CompleteResult", true},
	}
	for _, tc := range tests {
		got, ok := mustLoad(t, tc.version).ResultDef(tc.method)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s ResultDef(%q) = %q, %v; want %q, %v", tc.version, tc.method, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for _, version := range []string{"", "latest", "../2025-11-25", "2025-11-25/../2025-06-18"} {
		if _, err := Load(version); err == nil {
			t.Errorf("Load(%q) succeeded, want error", version)
		}
	}
	if _, err := Load("1999-01-01"); err == nil {
		t.Errorf("Load of a version without a schema succeeded")
	}
}

func TestLoadCachesAndIsConcurrencySafe(t *testing.T) {
	first := mustLoad(t, "2025-11-25")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := Load("2025-11-25")
			if err != nil {
				t.Error(err)
				return
			}
			if v != first {
				t.Error("Load returned a different Validator for the same version")
			}
			// Each goroutine compiles definitions lazily at the same time.
			for _, def := range []string{"CallToolResult", "ListPromptsResult", "ReadResourceResult"} {
				if err := v.ValidateAs(def, []byte(`{}`)); err == nil {
					t.Errorf("ValidateAs(%s, {}) succeeded, want error", def)
				}
			}
		}()
	}
	wg.Wait()
}

func TestDirFromEnvironment(t *testing.T) {
	def, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	// A copy elsewhere is found through the environment variable.
	tmp := t.TempDir()
	data, err := os.ReadFile(filepath.Join(def, "2025-06-18", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "2025-06-18"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "2025-06-18", "schema.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvDir, tmp)
	if got, err := Dir(); err != nil || got != tmp {
		t.Errorf("Dir() = %q, %v; want %q", got, err, tmp)
	}
	v, err := Load("2025-06-18")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err != nil {
		t.Error(err)
	}
	if _, err := Load("2025-11-25"); err == nil {
		t.Error("Load of a version missing from $" + EnvDir + " succeeded")
	}

	t.Setenv(EnvDir, filepath.Join(tmp, "missing"))
	if _, err := Dir(); err == nil {
		t.Error("Dir() with a missing directory succeeded")
	}
}
