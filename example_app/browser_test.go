package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/mcptest/browsertest"
)

// harness is the npm harness of the browser test: the official ext-apps
// package and TypeScript MCP client the test host is built from, and
// esbuild to bundle it (npm ci --prefix integration/apps; make test
// installs it).
const harness = "../integration/apps"

// hostState is what the test host page (integration/apps/host/host.js)
// tells of itself in window.host.
type hostState struct {
	Era             string   `json:"era"`
	Steps           []string `json:"steps"`
	Error           *string  `json:"error"`
	ProtocolVersion string   `json:"protocolVersion"`
	ServerUI        any      `json:"serverUI"`
	Tools           []string `json:"tools"`
	ModelTools      []string `json:"modelTools"`
	ResourceURI     string   `json:"resourceUri"`
	AppInfo         *struct {
		Name string `json:"name"`
	} `json:"appInfo"`
	ToolResultSent bool `json:"toolResultSent"`
	AppCalls       []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		IsError   bool           `json:"isError"`
	} `json:"appCalls"`
	RefusedAppCalls []string `json:"refusedAppCalls"`
}

// TestDashboardInABrowser renders the studies dashboard the way a web
// host does, in headless Chromium: a host page built on the official
// ext-apps AppBridge and TypeScript MCP client connects to the example app
// over Streamable HTTP, in the session era and on 2026-07-28, calls
// list_studies, and loads its UI resource into a sandboxed iframe behind a
// sandbox proxy of another origin. The view (appview's script) initializes
// over the bridge, shows the tool's result, and calls the app-only
// update_study when the user changes a study's status; the host keeps
// update_study out of the model's tools.
func TestDashboardInABrowser(t *testing.T) {
	chrome := browsertest.Chromium(t)
	dir := bundleHost(t)
	for _, era := range []string{"session", "stateless"} {
		t.Run(era, func(t *testing.T) {
			// Each era has an app of its own, with studies as seeded.
			srv := startAppOn(t, nil, func(e *echo.Echo) {
				e.GET("/host/*", echo.WrapHandler(http.StripPrefix("/host/", http.FileServer(http.Dir(dir)))))
			})
			u, err := url.Parse(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			// The sandbox proxy must be another origin than the host
			// page: the same server under another name.
			sandbox := "http://localhost:" + u.Port() + "/host/sandbox.html"
			token := mint(t, srv, ultraUser, grantedScopes(ultraUser))
			ctx := browsertest.Tab(t, chrome, 1100, 1000)
			q := url.Values{"era": {era}, "token": {token}, "sandbox": {sandbox}, "tool": {"list_studies"}, "args": {`{"status":"recruiting"}`}}
			browsertest.Do(t, ctx, "open the host page", chromedp.Navigate(srv.URL+"/host/index.html?"+q.Encode()))
			state := waitHost(t, ctx, "the tool result reaches the app", "h.toolResultSent")

			wantVersion := map[string]string{"session": protocolVersion, "stateless": "2026-07-28"}[era]
			if state.ProtocolVersion != wantVersion {
				t.Errorf("protocol version %q, want %q", state.ProtocolVersion, wantVersion)
			}
			if state.ServerUI == nil {
				t.Error("the server's capabilities do not declare io.modelcontextprotocol/ui")
			}
			if state.AppInfo == nil || state.AppInfo.Name != "studies-dashboard" {
				t.Errorf("the app initialized as %+v, want studies-dashboard", state.AppInfo)
			}
			if !slices.Contains(state.Tools, "update_study") || slices.Contains(state.ModelTools, "update_study") || !slices.Contains(state.ModelTools, "list_studies") {
				t.Errorf("tools %v, the model's %v: want update_study listed but kept from the model", state.Tools, state.ModelTools)
			}

			view := viewFrame(t, ctx)
			browsertest.Do(t, view, "the tool result is shown", chromedp.WaitVisible(chromedp.CSS("#studies tbody tr")))
			connection := browsertest.Value(t, view, "connection", chromedp.Text(chromedp.CSS("#connection")))
			count := browsertest.Value(t, view, "count", chromedp.Text(chromedp.CSS("#count")))
			first := browsertest.Value(t, view, "first row", chromedp.Text(chromedp.CSS("#studies tbody tr:first-child td:nth-child(3)")))
			if connection != "Connected to specter-test-host" || count != "30 of 120 studies" || first != "recruiting" {
				t.Errorf("the dashboard shows %q, %q, first status %q", connection, count, first)
			}

			// The user opens study 002 and makes it active: the view calls
			// get_study, then the app-only update_study.
			browsertest.Do(t, view, "update a study from the view",
				chromedp.Click(chromedp.CSS(`#studies tbody tr[data-id="002"]`)),
				chromedp.WaitVisible(chromedp.CSS("#detail")),
				chromedp.SetValue(chromedp.CSS("#new-status"), "active"),
				chromedp.Click(chromedp.CSS("#save")),
				chromedp.WaitVisible(chromedp.CSS("#notice:not(:empty)")))
			title := browsertest.Value(t, view, "title", chromedp.Text(chromedp.CSS("#detail-title")))
			status := browsertest.Value(t, view, "status", chromedp.Text(chromedp.CSS("#detail-status")))
			notice := browsertest.Value(t, view, "notice", chromedp.Text(chromedp.CSS("#notice")))
			row := browsertest.Value(t, view, "row", chromedp.Text(chromedp.CSS(`#studies tbody tr[data-id="002"] td:nth-child(3)`)))
			if title != "Caffeine and mood" || status != "active" || row != "active" || notice != "Study 002 is now active." {
				t.Errorf("after the update the view shows %q, status %q, row %q, notice %q", title, status, row, notice)
			}
			state = waitHost(t, ctx, "the host saw the app's calls", "h.appCalls.length >= 2")
			var calls []string
			for _, c := range state.AppCalls {
				calls = append(calls, c.Name)
				if c.IsError {
					t.Errorf("the app's %s call failed", c.Name)
				}
			}
			if !slices.Equal(calls, []string{"get_study", "update_study"}) || len(state.RefusedAppCalls) > 0 {
				t.Errorf("the app called %v (refused %v)", calls, state.RefusedAppCalls)
			}

			png := browsertest.Value(t, ctx, "screenshot", chromedp.FullScreenshot(100)) // quality 100 is a PNG
			shot := filepath.Join(t.ArtifactDir(), "dashboard-"+era+".png")
			if err := os.WriteFile(shot, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot of the dashboard (%s): %s", era, shot)
		})
	}
}

// viewFrame returns a context of the view's frame: the iframe the sandbox
// proxy loaded the UI resource into. Chrome runs the frames of other
// origins in processes of their own, as targets of their own.
func viewFrame(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	infos, err := chromedp.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, info := range infos {
		seen = append(seen, string(info.Type)+" "+info.URL)
		if info.Type == "iframe" && info.URL == "about:srcdoc" {
			fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(info.TargetID))
			t.Cleanup(cancel)
			return fctx
		}
	}
	t.Fatalf("no frame of the view among the targets %v", seen)
	return nil
}

// bundleHost builds the test host page with the harness's esbuild into a
// fresh directory, beside its HTML and the sandbox proxy, or skips the
// test when the harness is not installed.
func bundleHost(t *testing.T) string {
	t.Helper()
	esbuild := filepath.Join(harness, "node_modules", ".bin", "esbuild")
	if _, err := os.Stat(filepath.Join(harness, "node_modules", "@modelcontextprotocol", "ext-apps", "package.json")); err != nil {
		t.Skip("the npm harness is not installed (npm ci --prefix integration/apps; make test installs it): the browser test of the dashboard does not run")
	}
	dir := t.TempDir()
	out, err := exec.Command(esbuild, filepath.Join(harness, "host", "host.js"), "--bundle", "--format=esm",
		"--platform=browser", "--log-level=warning", "--outfile="+filepath.Join(dir, "host.bundle.js")).CombinedOutput()
	if err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
	for _, name := range []string{"index.html", "sandbox.html"} {
		b, err := os.ReadFile(filepath.Join(harness, "host", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// waitHost waits until cond (JavaScript, with h the host's state) holds
// and returns the state; a host error fails the test at once.
func waitHost(t *testing.T, ctx context.Context, what, cond string) hostState {
	t.Helper()
	raw := browsertest.Value(t, ctx, what, chromedp.Poll[string](`(() => { const h = window.host; return h && (h.error || (`+cond+`)) ? JSON.stringify(h) : false })()`))
	var s hostState
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatalf("%s: %v in %s", what, err, raw)
	}
	if s.Error != nil {
		t.Fatalf("%s: the host failed: %s (steps %v)", what, *s.Error, s.Steps)
	}
	return s
}
