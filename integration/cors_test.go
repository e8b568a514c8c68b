package integration

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/middleware"
)

// corsApp serves a router on an Echo group as the README has it for
// browser-based clients of origin: CORS first, then authentication with
// the notes app's own tokens, then the router, whose DNS-rebinding guard
// lets the same origin call. Without cors the group has no CORS
// middleware.
func corsApp(t *testing.T, origin string, cors bool) *httptest.Server {
	t.Helper()
	r := specter.NewRouter("browser", "1.0.0", quiet, specter.AllowedOrigins(origin))
	r.Tool("whoami", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.Reply(c.Caller().ID)
	}, specter.Description("Who is calling"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	var mw []echo.MiddlewareFunc
	if cors {
		mw = append(mw, echo.WrapMiddleware(middleware.CORS(origin)))
	}
	mw = append(mw, auth.JWT(auth.Config{InHouse: true, Keys: map[string]any{"": notesSecret}, Algorithms: []string{"HS256"}, Logger: &quietLog}))
	e := echo.New()
	r.Mount(e.Group("/mcp", mw...))
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

// The headers a browser's preflight asks for on behalf of MCP clients of
// both eras.
const corsRequested = "authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id, mcp-method, mcp-name, mcp-param-region"

// TestCORSPreflightAndAnswers sends real preflights and requests of both
// eras from a page's origin: the listed origin's preflight is answered
// with MCP's methods and headers, before authentication; other origins,
// methods and headers are refused; and every answer to the listed origin,
// a 401 included, exposes Mcp-Session-Id and WWW-Authenticate.
func TestCORSPreflightAndAnswers(t *testing.T) {
	const page = "https://notes.example.com"
	srv := corsApp(t, page, true)
	url := srv.URL + "/mcp"
	do := func(method string, header http.Header, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx(t), method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	preflight := func(origin, method, headers string) http.Header {
		return http.Header{"Origin": {origin}, "Access-Control-Request-Method": {method}, "Access-Control-Request-Headers": {headers}}
	}

	resp, body := do(http.MethodOptions, preflight(page, "POST", corsRequested), "")
	want := map[string]string{
		"Access-Control-Allow-Origin":  page,
		"Access-Control-Allow-Methods": "POST, GET, DELETE",
		"Access-Control-Allow-Headers": corsRequested,
		"Access-Control-Max-Age":       "600",
	}
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("preflight: %d %s, want 204", resp.StatusCode, body)
	}
	for name, value := range want {
		if got := resp.Header.Get(name); got != value {
			t.Errorf("preflight: %s %q, want %q", name, got, value)
		}
	}
	if vary := strings.Join(resp.Header.Values("Vary"), ", "); !strings.Contains(vary, "Origin") {
		t.Errorf("preflight: Vary %q lacks Origin", vary)
	}

	for _, tc := range []struct {
		name    string
		header  http.Header
		message string
	}{
		{"another origin", preflight("https://evil.example.com", "POST", "authorization"), "origin https://evil.example.com may not call this endpoint from a browser"},
		{"another method", preflight(page, "PUT", "authorization"), "method PUT is not one of this endpoint's (POST, GET, DELETE)"},
		{"another header", preflight(page, "POST", "authorization, x-debug"), "header x-debug is not one a page may send here"},
	} {
		resp, body := do(http.MethodOptions, tc.header, "")
		wantBody := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden (CORS): ` + tc.message + `"}}`
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" || strings.TrimSpace(body) != wantBody {
			t.Errorf("preflight from %s: %d, Allow-Origin %q, %s; want 403 without it, %s",
				tc.name, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), body, wantBody)
		}
	}

	token := "Bearer " + notesToken(t, notesSecret, "ada", time.Now().Add(time.Hour))
	readable := func(what string, resp *http.Response) {
		t.Helper()
		if resp.Header.Get("Access-Control-Allow-Origin") != page || resp.Header.Get("Access-Control-Expose-Headers") != "Mcp-Session-Id, WWW-Authenticate" {
			t.Errorf("%s: Allow-Origin %q, Expose-Headers %q", what, resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("Access-Control-Expose-Headers"))
		}
	}
	for era, req := range notesRequests(t, url, token) {
		req.Header.Set("Origin", page)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s from the page: %d %s", era, resp.StatusCode, body)
		}
		readable(era, resp)
		if era == "session" && resp.Header.Get("Mcp-Session-Id") == "" {
			t.Errorf("session: no Mcp-Session-Id to expose")
		}
	}
	// Authentication refuses after CORS: the page can read the challenge.
	for era, req := range notesRequests(t, url, "") {
		req.Header.Set("Origin", page)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s without a token: %d, WWW-Authenticate %q", era, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		readable(era+" refused", resp)
	}
}

// CORS is off by default: a preflight reaches the group's authentication
// and gets no CORS headers, so a browser refuses to send the request.
func TestCORSIsOffByDefault(t *testing.T) {
	srv := corsApp(t, "https://notes.example.com", false)
	req, err := http.NewRequestWithContext(ctx(t), http.MethodOptions, srv.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = http.Header{"Origin": {"https://notes.example.com"}, "Access-Control-Request-Method": {"POST"}}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight without CORS: %d, Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

// corsPage is the page the browser runs: from its own origin it calls the
// MCP endpoint as a browser-based client of both eras would, then reports
// what it could read to the page's server.
const corsPage = `<!doctype html><script>
(async () => {
  const mcp = new URL(location).searchParams.get("mcp"), token = new URL(location).searchParams.get("token");
  const out = {};
  const post = (headers, body) => fetch(mcp, {method: "POST", headers: Object.assign({"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, headers), body: JSON.stringify(body)});
  try {
    let r = await post({"Authorization": "Bearer " + token, "MCP-Protocol-Version": "2025-11-25"},
      {jsonrpc: "2.0", id: 1, method: "initialize", params: {protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {name: "page", version: "1"}}});
    out.session = {status: r.status, sessionId: r.headers.get("Mcp-Session-Id") || "", version: (await r.json()).result.protocolVersion};
    r = await post({"Authorization": "Bearer " + token, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami"},
      {jsonrpc: "2.0", id: 2, method: "tools/call", params: {name: "whoami", _meta: {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    out.stateless = {status: r.status, text: (await r.json()).result.content[0].text};
    r = await post({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
      {jsonrpc: "2.0", id: 3, method: "server/discover", params: {_meta: {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    out.refused = {status: r.status, challenge: r.headers.get("WWW-Authenticate") || ""};
  } catch (e) {
    out.error = String(e);
  }
  await fetch("/report", {method: "POST", body: JSON.stringify(out)});
})();
</script>`

// TestCORSFromChromium loads a page from one origin in headless Chromium
// and has it call an MCP endpoint on another, in both eras: the browser
// itself sends the preflights and enforces the answers, so what the page
// reports is what a browser-based client can do.
func TestCORSFromChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	reports := make(chan string, 1)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/report" {
			b, _ := io.ReadAll(r.Body)
			reports <- string(b)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, corsPage)
	}))
	t.Cleanup(page.Close)
	mcpSrv := corsApp(t, page.URL, true)
	token := notesToken(t, notesSecret, "ada", time.Now().Add(time.Hour))

	cmd := exec.CommandContext(testCtx(t), chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), page.URL+"/?mcp="+mcpSrv.URL+"/mcp&token="+token)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	var report string
	select {
	case report = <-reports:
	case <-exited:
		t.Fatal("chromium exited before the page reported")
	case <-testCtx(t).Done():
		t.Fatal("the page never reported")
	}
	var got struct {
		Session struct {
			Status    int
			SessionID string
			Version   string
		}
		Stateless struct {
			Status int
			Text   string
		}
		Refused struct {
			Status    int
			Challenge string
		}
		Error string
	}
	if err := json.Unmarshal([]byte(report), &got); err != nil {
		t.Fatalf("report %s: %v", report, err)
	}
	if got.Error != "" {
		t.Fatalf("the page's calls failed: %s", got.Error)
	}
	if got.Session.Status != 200 || got.Session.SessionID == "" || got.Session.Version != mcp.LatestSessionVersion {
		t.Errorf("session era from the page: %+v", got.Session)
	}
	if got.Stateless.Status != 200 || got.Stateless.Text != "ada" {
		t.Errorf("2026-07-28 from the page: %+v", got.Stateless)
	}
	if got.Refused.Status != 401 || !strings.HasPrefix(got.Refused.Challenge, "Bearer") {
		t.Errorf("the page read the refusal as %+v, want 401 with its challenge", got.Refused)
	}
}
