package integration

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// planned returns the fixture with a connect step that reads the plan
// from a header and allows a subset of everything to the "basic" plan.
func planned() *specter.Router {
	r := fixture.New(quiet, specter.ResourceMetadata("https://mcp.example.com/.well-known/oauth-protected-resource"))
	r.Connect(func(c *specter.Context) error {
		switch c.HTTPRequest().Header.Get("X-Plan") {
		case "":
			return specter.Unauthorized("send X-Plan")
		case "banned":
			return specter.Forbidden("this plan is banned")
		case "broken":
			return errors.New("database is down: secret detail")
		case "basic":
			c.SetPrincipal("basic-user")
			c.AllowTools("test_simple_text", "test_error_handling")
			c.AllowPrompts("test_simple_prompt")
			c.AllowResources("test://static-text", "test://template/{id}/data")
			c.PutInstructions("basic plan")
		default:
			c.SetPrincipal("ultra-user")
		}
		c.Assign("plan", c.HTTPRequest().Header.Get("X-Plan"))
		return nil
	})
	return r
}

func planClient(e *env, plan string) *mcptest.Client {
	c := e.newClient(nil)
	c.Header.Set("X-Plan", plan)
	return c
}

func TestConnectRefusals(t *testing.T) {
	e := newEnv(t, planned())
	for _, tc := range []struct {
		plan, auth string
		status     int
		challenge  string
	}{
		{"", "", 401, `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`},
		{"", "Bearer forged", 401, `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error="invalid_token"`},
		{"banned", "", 403, ""},
		{"broken", "", 500, ""},
	} {
		c := planClient(e, tc.plan)
		if tc.auth != "" {
			c.Header.Set("Authorization", tc.auth)
		}
		_, err := c.Initialize(ctx(t), "2025-11-25")
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			t.Fatalf("plan %q: %v, want a JSON-RPC error", tc.plan, err)
		}
		resp, _ := c.Call(ctx(t), "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}})
		if resp.Status != tc.status {
			t.Errorf("plan %q: status %d, want %d", tc.plan, resp.Status, tc.status)
		}
		if got := resp.Header.Get("WWW-Authenticate"); got != tc.challenge {
			t.Errorf("plan %q: WWW-Authenticate %q, want %q", tc.plan, got, tc.challenge)
		}
		if strings.Contains(string(resp.Body), "secret") {
			t.Errorf("plan %q: internal detail leaked: %s", tc.plan, resp.Body)
		}
	}
}

func TestAllowListsFilterEveryListAndHideEveryCall(t *testing.T) {
	e := newEnv(t, planned())
	basic := e.session(planClient(e, "basic"), "2025-11-25")
	ultra := e.session(planClient(e, "ultra"), "2025-11-25")

	bt, _ := basic.ListTools(ctx(t))
	ut, _ := ultra.ListTools(ctx(t))
	if len(bt) != 2 || bt[0].Name != "test_simple_text" || bt[1].Name != "test_error_handling" || len(ut) <= len(bt) {
		t.Fatalf("basic sees %d tools, ultra %d", len(bt), len(ut))
	}
	// A hidden tool fails exactly like an unknown one.
	_, _, hidden := basic.CallTool(ctx(t), "test_image_content", nil)
	_, _, unknown := basic.CallTool(ctx(t), "no_such_tool", nil)
	if hidden == nil || unknown == nil || strings.ReplaceAll(hidden.Error(), "test_image_content", "X") != strings.ReplaceAll(unknown.Error(), "no_such_tool", "X") {
		t.Fatalf("hidden %v vs unknown %v", hidden, unknown)
	}
	check := func(c *mcptest.Client, method string, params any, wantCode int) {
		t.Helper()
		resp, err := c.Call(ctx(t), method, params)
		if err != nil {
			t.Fatal(err)
		}
		if code := codeOf(resp); code != wantCode {
			t.Errorf("%s %v: code %d, want %d", method, params, code, wantCode)
		}
	}
	check(basic, "prompts/get", map[string]any{"name": "test_prompt_with_image"}, jsonrpc.CodeInvalidParams)
	check(ultra, "prompts/get", map[string]any{"name": "test_prompt_with_image"}, 0)
	check(basic, "resources/read", map[string]any{"uri": "test://static-binary"}, -32002)
	check(basic, "resources/read", map[string]any{"uri": "test://static-text"}, 0)
	check(basic, "resources/read", map[string]any{"uri": "test://template/9/data"}, 0)
	check(basic, "resources/subscribe", map[string]any{"uri": "test://watched-resource"}, -32002)
	check(basic, "completion/complete", map[string]any{"ref": map[string]string{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]string{"name": "arg1", "value": ""}}, jsonrpc.CodeInvalidParams)

	var prompts mcp.ListPromptsResult
	resp, _ := basic.Call(ctx(t), "prompts/list", nil)
	_ = resp.Decode(&prompts)
	var res mcp.ListResourcesResult
	resp, _ = basic.Call(ctx(t), "resources/list", nil)
	_ = resp.Decode(&res)
	if len(prompts.Prompts) != 1 || len(res.Resources) != 1 || res.Resources[0].URI != "test://static-text" {
		t.Errorf("basic lists %d prompts and %+v", len(prompts.Prompts), res.Resources)
	}
}

func codeOf(resp *mcptest.Response) int {
	if resp.Error != nil {
		return resp.Error.Code
	}
	return 0
}

func TestInstructionsPerCaller(t *testing.T) {
	e := newEnv(t, planned())
	res, err := planClient(e, "basic").Initialize(ctx(t), "2025-11-25")
	if err != nil || res.Instructions != "basic plan" {
		t.Fatalf("instructions %q %v", res.Instructions, err)
	}
}

func TestSessionBelongsToItsPrincipal(t *testing.T) {
	e := newEnv(t, planned())
	owner := e.session(planClient(e, "basic"), "2025-11-25")
	thief := planClient(e, "ultra")
	thief.SessionID, thief.Version = owner.SessionID, owner.Version
	resp, _ := thief.Call(ctx(t), "tools/list", nil)
	if resp.Status != http.StatusNotFound {
		t.Fatalf("another principal using the session: %d, want 404", resp.Status)
	}
	if status, _ := thief.Delete(ctx(t)); status != http.StatusNotFound {
		t.Errorf("another principal deleting the session: %d, want 404", status)
	}
	if _, err := owner.ListTools(ctx(t)); err != nil {
		t.Errorf("the owner lost its session: %v", err)
	}
}

// TestHostAndOriginGuard: the router's DNS-rebinding guard on a loopback
// address, on by default, with the lists an operator adds, and turned
// off. "SELF" stands for the server's own host:port.
func TestHostAndOriginGuard(t *testing.T) {
	defaults := []guardProbe{
		{"evil.example.com", "", 403},
		{"", "http://evil.example.com", 403},
		{"", "null", 403},
		{"localhost:1234", "", 200},
		{"[::1]:80", "", 200},
		{"", "http://SELF", 200},
		{"localhost:SELFPORT", "http://127.0.0.1:SELFPORT", 200},
		// Issue 9 item 5: another local page is another origin.
		{"", "http://127.0.0.1:9999", 403},
		{"", "http://localhost", 403},
	}
	tests := []struct {
		name   string
		opts   []specter.RouterOption
		probes []guardProbe
	}{
		{"default", nil, append(defaults, guardProbe{"myapp.test", "", 403}, guardProbe{"", "https://app.example.com", 403})},
		{"allowed host", []specter.RouterOption{specter.AllowedHosts("MyApp.test")}, append(defaults,
			guardProbe{"myapp.test:8080", "", 200}, guardProbe{"myapp.test", "https://myapp.test", 200}, guardProbe{"other.test", "", 403})},
		{"allowed origin", []specter.RouterOption{specter.AllowedOrigins("https://app.example.com", "http://localhost:6274")}, append(defaults,
			guardProbe{"", "https://app.example.com", 200}, guardProbe{"", "http://localhost:6274", 200},
			guardProbe{"", "http://app.example.com", 403}, guardProbe{"app.example.com", "", 403})},
		{"no guard", []specter.RouterOption{specter.NoHostGuard()}, []guardProbe{
			{"evil.example.com", "", 200}, {"", "http://evil.example.com", 200}, {"", "null", 200}, {"localhost", "", 200}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, fixture.New(append([]specter.RouterOption{quiet}, tt.opts...)...))
			probeGuard(t, e.srv.URL, e.srv.Client(), tt.probes)
		})
	}
}

// TestHostGuardOnAPublicAddress: on a non-loopback address, a rebinding
// page (Host and Origin both its own name) is refused by default, and
// listed names are checked (issue 9 item 5).
func TestHostGuardOnAPublicAddress(t *testing.T) {
	ip := publicIP(t)
	serve := func(opts ...specter.RouterOption) string {
		r := fixture.New(append([]specter.RouterOption{quiet}, opts...)...)
		ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
		if err != nil {
			t.Skipf("cannot listen on %s: %v", ip, err)
		}
		srv := httptest.NewUnstartedServer(r.Handler())
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		t.Cleanup(func() {
			srv.Close()
			_ = r.Shutdown(context.Background())
		})
		return srv.URL
	}
	url := serve()
	probeGuard(t, url, http.DefaultClient, []guardProbe{
		{"", "", 200},
		{"", "http://SELF", 200}, // an IP address names no rebinding page
		{"evil.example.com", "", 200},
		{"evil.example.com", "http://evil.example.com", 403},
		{"evil.example.com:SELFPORT", "http://evil.example.com:SELFPORT", 403},
		{"", "http://localhost:3000", 403},
	})
	url = serve(specter.AllowedHosts("mcp.example.com"), specter.AllowedOrigins("https://app.example.com"))
	probeGuard(t, url, http.DefaultClient, []guardProbe{
		{"", "", 200},
		{"mcp.example.com", "", 200},
		{"mcp.example.com", "https://mcp.example.com", 200},
		{"mcp.example.com", "https://app.example.com", 200},
		{"evil.example.com", "", 403},
		{"evil.example.com", "http://evil.example.com", 403},
		{"localhost", "", 403},
	})
}

// publicIP returns a non-loopback address of this machine, or skips.
func publicIP(t *testing.T) net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no interface addresses: %v", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil && !n.IP.IsLinkLocalUnicast() {
			return n.IP
		}
	}
	t.Skip("this machine has no non-loopback IPv4 address")
	return nil
}

// guardProbe is one initialize POST with a Host and an Origin ("" keeps
// the client's own Host, or sends no Origin) and the status it must get.
type guardProbe struct {
	host, origin string
	status       int
}

func probeGuard(t *testing.T, base string, client *http.Client, probes []guardProbe) {
	t.Helper()
	self := strings.TrimPrefix(base, "http://")
	_, port, _ := net.SplitHostPort(self)
	expand := strings.NewReplacer("SELFPORT", port, "SELF", self).Replace
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range probes {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.host != "" {
			req.Host = expand(tc.host)
		}
		if tc.origin != "" {
			req.Header.Set("Origin", expand(tc.origin))
		}
		hr, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		hr.Body.Close()
		if hr.StatusCode != tc.status {
			t.Errorf("host %q origin %q: %d, want %d", req.Host, req.Header.Get("Origin"), hr.StatusCode, tc.status)
		}
	}
}

func TestPanicsAndErrorsAreGenericToClientsAndDetailedToTheReporter(t *testing.T) {
	var mu sync.Mutex
	var reported []string
	r := specter.NewRouter("t", "1", quiet, specter.OnError(func(_ context.Context, err error, req *specter.Request) {
		mu.Lock()
		reported = append(reported, req.Name+": "+err.Error())
		mu.Unlock()
	}))
	r.Tool("boom", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		panic("kaboom secret")
	}, specter.Description("Panics"))
	r.Tool("fail", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Error(errors.New("db password wrong"))
	}, specter.Description("Fails"))
	r.Tool("asyncboom", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.NoReply(func(*specter.Stream) specter.Result { panic("async secret") })
	}, specter.Description("Panics later"))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	for _, name := range []string{"boom", "fail", "asyncboom"} {
		_, resp, err := c.CallTool(ctx(t), name, nil)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || je.Message != "Internal error" {
			t.Errorf("%s: %v", name, err)
		}
		if strings.Contains(string(resp.Body), "secret") {
			t.Errorf("%s leaked detail: %s", name, resp.Body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(reported, "\n")
	for _, want := range []string{"boom: panic: kaboom secret", "fail: db password wrong", "asyncboom: panic: async secret"} {
		if !strings.Contains(all, want) {
			t.Errorf("reporter did not get %q", want)
		}
	}
	if _, err := c.ListTools(ctx(t)); err != nil {
		t.Fatalf("server unusable after panics: %v", err)
	}
}

func TestEchoMountRunsGroupMiddlewareBeforeConnect(t *testing.T) {
	r := fixture.New(quiet)
	var sawEcho, sawMiddleware bool
	r.Connect(func(c *specter.Context) error {
		sawEcho = c.Echo() != nil
		sawMiddleware = c.Echo() != nil && c.Echo().Get("mw") == "ran"
		return nil
	})
	e := echo.New()
	e.HideBanner = true
	r.Mount(e.Group("/mcp", func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set("mw", "ran")
			return next(c)
		}
	}))
	srv := httptest.NewServer(e)
	defer srv.Close()
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	c := mcptest.NewClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	c.OnMessage = (&checker{t: t, c: c, count: new(atomic.Int64)}).observe
	if _, err := c.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	if !sawEcho || !sawMiddleware {
		t.Fatalf("echo context %v, group middleware before connect %v", sawEcho, sawMiddleware)
	}
	// Streaming works through Echo's response writer.
	resp, err := c.Call(ctx(t), "tools/call", map[string]any{"name": "test_tool_with_progress", "_meta": map[string]any{"progressToken": 1}})
	if err != nil || !resp.Streamed || len(resp.Notifications) != 3 {
		t.Fatalf("streamed through Echo: %+v %v", resp, err)
	}
	s, err := c.Listen(ctx(t), "")
	if err != nil {
		t.Fatalf("GET through Echo: %v", err)
	}
	s.Close()
}
