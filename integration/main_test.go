package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/integration/internal/wire"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(cleanup{m})
}

// cleanup removes what the tests built for all of them once they ran.
type cleanup struct{ m *testing.M }

func (c cleanup) Run() int {
	defer removeStdioFixture()
	return c.m.Run()
}

// resultDefs names the schema definition of each method's result.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"completion/complete":      "CompleteResult",
	"tasks/get":                "GetTaskResult",
	"tasks/cancel":             "CancelTaskResult",
	"tasks/list":               "ListTasksResult",
	"tasks/result":             "GetTaskPayloadResult",
}

// checker validates every message a client receives against the official
// schema of the session's protocol version and fails the test otherwise.
type checker struct {
	t     testing.TB
	c     *mcptest.Client
	count *atomic.Int64
}

func (k *checker) observe(request string, msg []byte) {
	k.t.Helper()
	version := k.c.Version
	if request == "initialize" {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		_ = json.Unmarshal(msg, &r)
		version = r.Result.ProtocolVersion
	}
	if version == "" {
		version = mcp.LatestSessionVersion
	}
	v, err := wire.Load(version)
	if err != nil {
		k.t.Errorf("load schema %s: %v", version, err)
		return
	}
	k.count.Add(1)
	if err := v.Validate(msg); err != nil {
		k.t.Errorf("message violates the %s schema: %v\n%s", version, err, msg)
		return
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(msg, &env)
	var def string
	value := msg
	switch {
	case env.Method != "" && env.ID == nil:
		def = "ServerNotification"
	case env.Method != "":
		def = "ServerRequest"
	case env.Result != nil && request == "tools/call" && bytes.HasPrefix(env.Result, []byte(`{"task":`)):
		def, value = "CreateTaskResult", env.Result
	case env.Result != nil && resultDefs[request] != "":
		def, value = resultDefs[request], env.Result
	}
	if def == "" {
		return
	}
	if err := v.ValidateAs(def, value); err != nil {
		k.t.Errorf("%s (%s) violates the %s schema: %v\n%s", def, request, version, err, msg)
	}
}

// quiet keeps the router's own log out of test output.
var quiet = specter.Logger(zerolog.Nop())

// env is a fixture router served over HTTP with a schema-checked client.
type env struct {
	t      *testing.T
	r      *specter.Router
	srv    *httptest.Server
	client *mcptest.Client
	// checked counts the messages schema-checked for this test.
	checked atomic.Int64
}

// newEnv serves r (the fixture when nil) and returns a client for it.
func newEnv(t *testing.T, r *specter.Router) *env {
	t.Helper()
	if r == nil {
		r = fixture.New(quiet)
	}
	srv, c := mcptest.NewServer(t, r.Handler(), "/mcp")
	e := &env{t: t, r: r, srv: srv}
	e.client = e.newClient(c)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	return e
}

// newClient returns a fresh schema-checked client of the same server.
func (e *env) newClient(base *mcptest.Client) *mcptest.Client {
	c := base
	if c == nil {
		c = mcptest.NewClient(e.srv.URL + "/mcp")
		c.HTTP = e.srv.Client()
	}
	k := &checker{t: e.t, c: c, count: &e.checked}
	c.OnMessage = k.observe
	c.Capabilities = mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapability{}, Sampling: &mcp.SamplingCapability{}, Roots: &mcp.RootsCapability{},
	}
	return c
}

// session initializes a client at version and fails the test on error.
func (e *env) session(c *mcptest.Client, version string) *mcptest.Client {
	e.t.Helper()
	if c == nil {
		c = e.client
	}
	if _, err := c.Initialize(ctx(e.t), version); err != nil {
		e.t.Fatalf("initialize %s: %v", version, err)
	}
	return c
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// text returns the first text content of a tool result.
func text(t testing.TB, res *mcptest.ToolResult) string {
	t.Helper()
	for _, c := range res.Content {
		if c, ok := c.(*mcp.TextContent); ok {
			return c.Text
		}
	}
	t.Fatalf("no text content in %+v", res)
	return ""
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return string(b)
}
