package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/internal/module"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/principal"
)

// The MCP Apps extension (io.modelcontextprotocol/ui) on the wire, in both
// eras: negotiation, _meta.ui on tools and UI resources (checked against
// the JSON schema the official ext-apps package publishes), the MIME type,
// visibility, and the fallbacks for clients without UI.

const boardPage = "<!DOCTYPE html><html><head><title>Board</title></head><body><div id=board></div></body></html>"

// uiCaps declares the UI extension with the given MIME types.
func uiCaps(mimeTypes ...string) mcp.ClientCapabilities {
	raw, _ := json.Marshal(mcp.UIClientCapability{MIMETypes: mimeTypes})
	return mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{mcp.ExtensionUI: raw}}
}

// appsServer serves a router with a UI resource, a tool that shows it, an
// app-only tool behind a scope and connect's allow-list, and a model-only
// tool. Requests carry their caller's scopes in X-Scopes (as auth.JWT
// would put them in the context). connectSawUI records what connect saw.
type appsServer struct {
	*env
	appCalls     atomic.Int64 // app_save calls the middleware saw
	connectSawUI sync.Map     // X-Probe → SupportsUI in connect
}

func newAppsServer(t *testing.T) *appsServer {
	t.Helper()
	s := &appsServer{}
	r := specter.NewRouter("apps", "1.0.0", quiet)
	r.Connect(func(c *specter.Context) error {
		if probe := c.HTTPRequest().Header.Get("X-Probe"); probe != "" {
			s.connectSawUI.Store(probe, c.SupportsUI())
		}
		if c.HTTPRequest().Header.Get("X-Plan") == "basic" {
			c.HideTools("app_save")
		}
		if !c.SupportsUI() {
			c.HideTools("app_save") // the fallback: no view, so no app-only tool
		}
		return nil
	})
	counted := specter.Use(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			s.appCalls.Add(1)
			return next(req, c)
		}
	})
	r.UI("ui://board/view", specter.HTML(boardPage), specter.Name("board"), specter.Description("The board"),
		specter.CSP(mcp.UICSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://*.cdn.example.com"},
			FrameDomains: []string{"https://www.youtube.com"}, BaseURIDomains: []string{"https://cdn.example.com"}}),
		specter.Permissions(mcp.UIPermissions{ClipboardWrite: true}), specter.Domain("board.apps.example.com"), specter.PrefersBorder(true))
	r.Tool("show_board", func(_ specter.Params, req *specter.Request, c *specter.Context) specter.Result {
		text := "The board has 3 cards."
		if !c.SupportsUI() {
			text += " (shown as text: this client renders no UI)"
		}
		return specter.Reply(&mcp.CallToolResult{Content: []mcp.Content{mcp.Text(text)}, StructuredContent: json.RawMessage(`{"cards":3}`)})
	}, specter.Description("Show the board"), specter.UIResource("ui://board/view"))
	r.Tool("app_save", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("saved")
	}, specter.Description("Save the board"), specter.UIResource("ui://board/view"), specter.Visibility(mcp.VisibilityApp),
		specter.Scopes("board:write"), counted)
	r.Tool("model_only", func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("ok") },
		specter.Description("A tool the app may not call"), specter.Visibility(mcp.VisibilityModel))

	withScopes := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if scopes := req.Header.Get("X-Scopes"); scopes != "" {
			req = req.WithContext(principal.NewContext(req.Context(), &principal.Principal{ID: "ann", Scopes: strings.Fields(scopes)}))
		}
		r.ServeHTTP(w, req)
	})
	srv, c := mcptest.NewServer(t, withScopes, "/mcp")
	s.env = &env{t: t, r: r, srv: srv}
	s.client = s.newClient(c)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	return s
}

// appsCaller is a client of either era, schema-checked, declaring caps,
// with the given request headers.
func (s *appsServer) caller(t *testing.T, stateless bool, caps mcp.ClientCapabilities, header map[string]string) mcptest.Caller {
	t.Helper()
	if stateless {
		c := s.stateless()
		c.Capabilities = caps
		for k, v := range header {
			c.Header.Set(k, v)
		}
		return c
	}
	c := s.newClient(nil)
	c.Capabilities = caps
	c.Header = http.Header{}
	for k, v := range header {
		c.Header.Set(k, v)
	}
	s.session(c, mcp.LatestSessionVersion)
	return c
}

// serverExtensions are the extensions the server declares to the caller:
// at initialize in a session, in server/discover on 2026-07-28.
func (s *appsServer) serverExtensions(t *testing.T, stateless bool) map[string]json.RawMessage {
	t.Helper()
	if stateless {
		var d mcp.DiscoverResult
		complete(t, call(t, s.stateless(), "server/discover", nil), &d)
		return d.Capabilities.Extensions
	}
	c := s.newClient(nil)
	res, err := c.Initialize(ctx(t), mcp.LatestSessionVersion)
	if err != nil {
		t.Fatal(err)
	}
	return res.Capabilities.Extensions
}

// era is a protocol era a test runs in.
type era struct {
	name      string
	stateless bool // 2026-07-28; else a session of the newest session-era revision
}

// inBothEras runs test as a subtest in each era.
func inBothEras(t *testing.T, test func(t *testing.T, era era)) {
	for _, e := range []era{{"session", false}, {"2026-07-28", true}} {
		t.Run(e.name, func(t *testing.T) { test(t, e) })
	}
}

func TestAppsWire(t *testing.T) {
	apps := extAppsSchema(t)
	inBothEras(t, func(t *testing.T, era era) {
		s := newAppsServer(t)
		ui := uiCaps(mcp.MIMETypeApp)

		// The server declares the extension, with the UI MIME type it serves.
		if got := string(s.serverExtensions(t, era.stateless)[mcp.ExtensionUI]); got != `{"mimeTypes":["text/html;profile=mcp-app"]}` {
			t.Errorf("server extensions[%s] = %s", mcp.ExtensionUI, got)
		}

		c := s.caller(t, era.stateless, ui, map[string]string{"X-Scopes": "board:write", "X-Probe": era.name})
		tools, err := c.ListTools(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if saw, _ := s.connectSawUI.Load(era.name); saw != true {
			t.Errorf("connect saw SupportsUI = %v, want true", saw)
		}
		byName := map[string]mcp.Tool{}
		for _, tool := range tools {
			byName[tool.Name] = tool
			if _, ok := tool.Meta[mcp.MetaUI]; ok {
				apps.check(t, "McpUiToolMeta", tool.Meta[mcp.MetaUI])
			}
		}
		for name, want := range map[string]string{
			"show_board": `{"ui":{"resourceUri":"ui://board/view"},"ui/resourceUri":"ui://board/view"}`,
			// The app-only tool is listed, with its visibility, for the
			// host to keep from the model.
			"app_save":   `{"ui":{"resourceUri":"ui://board/view","visibility":["app"]},"ui/resourceUri":"ui://board/view"}`,
			"model_only": `{"ui":{"visibility":["model"]}}`,
		} {
			if got := mustJSON(byName[name].Meta); !sameJSON(got, want) {
				t.Errorf("%s _meta = %s, want %s", name, got, want)
			}
		}

		// The UI resource: listed with its MIME type and _meta.ui, read
		// with the same _meta.ui on its content.
		resources, err := c.ListResources(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(resources, func(r mcp.Resource) bool { return r.URI == "ui://board/view" })
		if i < 0 {
			t.Fatalf("ui://board/view not in resources/list %v", resources)
		}
		listed := resources[i]
		wantMeta := `{"csp":{"connectDomains":["https://api.example.com"],"resourceDomains":["https://*.cdn.example.com"],` +
			`"frameDomains":["https://www.youtube.com"],"baseUriDomains":["https://cdn.example.com"]},` +
			`"permissions":{"clipboardWrite":{}},"domain":"board.apps.example.com","prefersBorder":true}`
		if listed.MIMEType != mcp.MIMETypeApp || !sameJSON(mustJSON(listed.Meta[mcp.MetaUI]), wantMeta) {
			t.Errorf("listed as %s with _meta.ui %s", listed.MIMEType, mustJSON(listed.Meta[mcp.MetaUI]))
		}
		apps.check(t, "McpUiResourceMeta", listed.Meta[mcp.MetaUI])
		read, _, err := c.ReadResource(ctx(t), "ui://board/view")
		if err != nil {
			t.Fatal(err)
		}
		if len(read.Contents) != 1 {
			t.Fatalf("contents %+v", read.Contents)
		}
		item := read.Contents[0]
		if item.URI != "ui://board/view" || item.MIMEType != mcp.MIMETypeApp || item.Text == nil || *item.Text != boardPage ||
			!sameJSON(mustJSON(item.Meta[mcp.MetaUI]), wantMeta) {
			t.Errorf("read %s %s %v _meta %s", item.URI, item.MIMEType, item.Text, mustJSON(item.Meta))
		}
		apps.check(t, "McpUiResourceMeta", item.Meta[mcp.MetaUI])

		// The tool keeps its text and structured content, UI or not.
		res, _, err := c.CallTool(ctx(t), "show_board", nil)
		if err != nil || res.IsError || text(t, res) != "The board has 3 cards." || string(res.StructuredContent) != `{"cards":3}` {
			t.Errorf("show_board = %+v, %v", res, err)
		}

		// A call from the app is an ordinary tools/call: through the
		// middleware, and allowed by the scope.
		before := s.appCalls.Load()
		if res, _, err := c.CallTool(ctx(t), "app_save", nil); err != nil || res.IsError || text(t, res) != "saved" {
			t.Errorf("app_save = %+v, %v", res, err)
		}
		if s.appCalls.Load() != before+1 {
			t.Error("the middleware did not see the app's call")
		}
	})
}

// Visibility widens nothing: an app-only tool is refused to a caller that
// connect, its scopes or its client's lack of UI keep from it, exactly as
// any tool is.
func TestAppsVisibilityWidensNothing(t *testing.T) {
	inBothEras(t, func(t *testing.T, era era) {
		s := newAppsServer(t)
		for _, tc := range []struct {
			name   string
			caps   mcp.ClientCapabilities
			header map[string]string
			want   string // the refusal
		}{
			{"hidden by connect", uiCaps(mcp.MIMETypeApp), map[string]string{"X-Scopes": "board:write", "X-Plan": "basic"}, "Unknown tool: app_save"},
			{"without the scope", uiCaps(mcp.MIMETypeApp), map[string]string{"X-Scopes": "board:read"}, "needs the scope board:write (-32003)"},
			{"a client without UI", mcp.ClientCapabilities{}, map[string]string{"X-Scopes": "board:write"}, "Unknown tool: app_save"},
			{"a client of other UI types", uiCaps("text/uri-list"), map[string]string{"X-Scopes": "board:write"}, "Unknown tool: app_save"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := s.caller(t, era.stateless, tc.caps, tc.header)
				tools, err := c.ListTools(ctx(t))
				if err != nil {
					t.Fatal(err)
				}
				if slices.ContainsFunc(tools, func(tool mcp.Tool) bool { return tool.Name == "app_save" }) {
					t.Error("app_save is listed")
				}
				before := s.appCalls.Load()
				res, _, err := c.CallTool(ctx(t), "app_save", nil)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("app_save = %+v, %v; want an error with %q", res, err, tc.want)
				}
				if s.appCalls.Load() != before {
					t.Error("a refused call reached the middleware")
				}
			})
		}
	})
}

// Clients without UI get the fallback: the text of the tool, and connect
// and the handler both know.
func TestAppsFallbackWithoutUI(t *testing.T) {
	inBothEras(t, func(t *testing.T, era era) {
		s := newAppsServer(t)
		c := s.caller(t, era.stateless, uiCaps("text/uri-list"), map[string]string{"X-Probe": "other"})
		res, _, err := c.CallTool(ctx(t), "show_board", nil)
		if saw, _ := s.connectSawUI.Load("other"); saw != false {
			t.Errorf("connect saw SupportsUI = %v for a client of other UI types", saw)
		}
		if err != nil || res.IsError || text(t, res) != "The board has 3 cards. (shown as text: this client renders no UI)" ||
			string(res.StructuredContent) != `{"cards":3}` {
			t.Errorf("show_board without UI = %+v, %v", res, err)
		}
		// The UI resource stays readable: the spec lets hosts prefetch.
		if _, _, err := c.ReadResource(ctx(t), "ui://board/view"); err != nil {
			t.Errorf("read the UI resource: %v", err)
		}
	})
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// extApps validates values against definitions of the JSON schema that
// the official @modelcontextprotocol/ext-apps package publishes
// (schema.json), from the npm harness of the browser test.
type extApps struct {
	c   *jsonschema.Compiler
	url string
}

func extAppsSchema(t *testing.T) *extApps {
	t.Helper()
	root, err := module.Root()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "integration", "apps", "node_modules", "@modelcontextprotocol", "ext-apps", "dist", "src", "generated", "schema.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("the ext-apps JSON schema is not installed (npm ci --prefix integration/apps; make test installs it): %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "file://" + filepath.ToSlash(path)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	return &extApps{c: c, url: url}
}

// check validates v against the definition def, and checks that the
// definition rejects what the extension forbids, so that a check cannot
// pass for a definition that accepts anything.
func (a *extApps) check(t *testing.T, def string, v any) {
	t.Helper()
	s, err := a.c.Compile(a.url + "#/$defs/" + def)
	if err != nil {
		t.Fatalf("compile %s: %v", def, err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(mustJSON(v)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s violates the ext-apps schema's %s: %v", mustJSON(v), def, err)
	}
	bad := map[string]any{"csp": map[string]any{}, "resourceUri": 7}
	if s.Validate(bad) == nil || reflect.DeepEqual(doc, bad) {
		t.Errorf("the ext-apps schema's %s accepts %v", def, bad)
	}
}
