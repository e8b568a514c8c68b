package specter

import (
	"encoding/json"
	"html/template"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/specter-mcp/specter/mcp"
)

const page = "<!DOCTYPE html><html><body>hi</body></html>"

func TestUIDeclarationErrors(t *testing.T) {
	r := newTestRouter()
	r.UI("ui://taken", HTML(page), Description("x"))
	files := fstest.MapFS{"view.html": {Data: []byte(page)}, "frag.html": {Data: []byte("<div>no doctype</div>")}}
	cases := []struct {
		name    string
		declare func()
		want    string
	}{
		{"not ui://", func() { r.UI("app://view", HTML(page), Description("x")) }, "begins with ui://"},
		{"template URI", func() { r.UI("ui://studies/{id}", HTML(page), Description("x")) }, "one fixed URI"},
		{"Plug-style template URI", func() { r.UI("ui://studies/:id", HTML(page), Description("x")) }, "one fixed URI"},
		{"tool linked to a template", func() { r.Tool("tt", nop, Description("x"), UIResource("ui://s/:id")) }, "one fixed URI"},
		{"no page", func() { r.UI("ui://empty", UIPage{}, Description("x")) }, "the UI page is empty"},
		{"not a document", func() { r.UI("ui://frag", HTML("<div>hi</div>"), Description("x")) }, "<!DOCTYPE html>"},
		{"missing file", func() { r.UI("ui://missing", HTMLFile(files, "nope.html"), Description("x")) }, "nope.html"},
		{"file without doctype", func() { r.UI("ui://frag2", HTMLFile(files, "frag.html"), Description("x")) }, "<!DOCTYPE html>"},
		{"other MIME type", func() { r.UI("ui://mime", HTML(page), Description("x"), MIMEType("text/html")) }, "MIME type is text/html;profile=mcp-app"},
		{"duplicate", func() { r.UI("ui://taken", HTML(page), Description("x")) }, "already declared"},
		{"plain resource at ui:// without the MIME type", func() { r.Resource("ui://plain", nop, Description("x")) }, "MIME type"},
		{"CSP keyword", func() {
			r.UI("ui://k", HTML(page), Description("x"), CSP(mcp.UICSP{ResourceDomains: []string{"'unsafe-eval'"}}))
		}, "csp.resourceDomains"},
		{"CSP injection", func() {
			r.UI("ui://i", HTML(page), Description("x"), CSP(mcp.UICSP{ConnectDomains: []string{"https://a.example; script-src *"}}))
		}, "no whitespace, ';'"},
		{"CSP path", func() {
			r.UI("ui://p", HTML(page), Description("x"), CSP(mcp.UICSP{FrameDomains: []string{"https://a.example/embed"}}))
		}, "without user, path"},
		{"CSP scheme", func() {
			r.UI("ui://s", HTML(page), Description("x"), CSP(mcp.UICSP{BaseURIDomains: []string{"javascript:alert(1)"}}))
		}, "csp.baseUriDomains"},
		{"CSP bare host", func() {
			r.UI("ui://b", HTML(page), Description("x"), CSP(mcp.UICSP{ConnectDomains: []string{"api.example.com"}}))
		}, "scheme://host"},
		{"CSP double wildcard", func() {
			r.UI("ui://w", HTML(page), Description("x"), CSP(mcp.UICSP{ConnectDomains: []string{"https://*.*.example.com"}}))
		}, "one leading"},
		{"domain with scheme", func() { r.UI("ui://d", HTML(page), Description("x"), Domain("https://x.example")) }, "not a domain name"},
		{"UI options and raw _meta.ui", func() {
			r.UI("ui://both", HTML(page), Description("x"), PrefersBorder(true), Meta(mcp.Meta{"ui": map[string]any{"domain": "a.example"}}))
		}, "not both"},
		{"raw resource _meta.ui unknown member", func() {
			r.UI("ui://raw", HTML(page), Description("x"), Meta(mcp.Meta{"ui": map[string]any{"resourceUri": "ui://x"}}))
		}, "_meta.ui.resourceUri is not defined for UI resources"},
		{"raw permission with a value", func() {
			r.UI("ui://perm", HTML(page), Description("x"), Meta(mcp.Meta{"ui": map[string]any{"permissions": map[string]any{"camera": true}}}))
		}, "permissions.camera has an invalid value"},
		{"raw unknown permission", func() {
			r.UI("ui://perm2", HTML(page), Description("x"), Meta(mcp.Meta{"ui": map[string]any{"permissions": map[string]any{"usb": map[string]any{}}}}))
		}, "permissions.usb is not defined"},
		{"raw CSP not origins", func() {
			r.UI("ui://raw2", HTML(page), Description("x"), Meta(mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{"*"}}}}))
		}, "csp.connectDomains"},
		{"resource options on a tool", func() { r.Tool("t1", nop, Description("x"), CSP(mcp.UICSP{})) }, "apply to UI resources"},
		{"resource options on a plain resource", func() { r.Resource("app://r", nop, Description("x"), PrefersBorder(true)) }, "apply to UI resources"},
		{"raw _meta.ui on a plain resource", func() { r.Resource("app://r2", nop, Description("x"), Meta(mcp.Meta{"ui": map[string]any{}})) }, "describes UI resources"},
		{"tool options on a resource", func() { r.UI("ui://tool-opt", HTML(page), Description("x"), UIResource("ui://x")) }, "apply to tools"},
		{"tool options on a prompt", func() { r.Prompt("p1", nop, Description("x"), Visibility(mcp.VisibilityApp)) }, "apply to tools"},
		{"tool resource not ui://", func() { r.Tool("t2", nop, Description("x"), UIResource("https://example.com/view")) }, "not a ui:// URI"},
		{"tool resource empty", func() { r.Tool("t3", nop, Description("x"), UIResource("")) }, "needs the ui:// URI"},
		{"empty visibility", func() { r.Tool("t4", nop, Description("x"), Visibility()) }, "nobody could use the tool"},
		{"unknown visibility", func() { r.Tool("t5", nop, Description("x"), Visibility("user")) }, `"user" is neither`},
		{"visibility twice", func() { r.Tool("t6", nop, Description("x"), Visibility(mcp.VisibilityApp, mcp.VisibilityApp)) }, "twice"},
		{"CSP on a tool's _meta.ui", func() {
			r.Tool("t7", nop, Description("x"), Meta(mcp.Meta{"ui": map[string]any{"resourceUri": "ui://taken", "csp": map[string]any{}}}))
		}, "belongs on the UI resource"},
		{"permissions on a tool's _meta.ui", func() {
			r.Tool("t8", nop, Description("x"), Meta(mcp.Meta{"ui": map[string]any{"permissions": map[string]any{}}}))
		}, "belongs on the UI resource"},
		{"unknown member on a tool's _meta.ui", func() {
			r.Tool("t9", nop, Description("x"), Meta(mcp.Meta{"ui": map[string]any{"prefersBorder": true}}))
		}, "not defined for tools"},
		{"legacy key differs", func() {
			r.Tool("t10", nop, Description("x"), Meta(mcp.Meta{"ui": map[string]any{"resourceUri": "ui://a"}, "ui/resourceUri": "ui://b"}))
		}, "differ"},
		{"legacy key not a string", func() { r.Tool("t11", nop, Description("x"), Meta(mcp.Meta{"ui/resourceUri": 7})) }, "is a string"},
		{"UI option on a skill", func() {
			r.Skill(fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: s\ndescription: d\n---\n")}}, PrefersBorder(true))
		}, "only Scopes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := declErr(t, tc.declare)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestUIOriginsAccepted(t *testing.T) {
	r := newTestRouter()
	r.UI("ui://ok", HTML(page), Description("x"), CSP(mcp.UICSP{
		ConnectDomains:  []string{"https://api.example.com", "wss://realtime.example.com:8443", "http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:9000"},
		ResourceDomains: []string{"https://*.example.com", "https://cdn.example.com/"},
		FrameDomains:    []string{"https://www.youtube.com"},
		BaseURIDomains:  []string{"https://cdn.example.com"},
	}), Permissions(mcp.UIPermissions{Camera: true, ClipboardWrite: true}), Domain("a904794854a047f6.claudemcpcontent.com"), PrefersBorder(false))
	d := r.catalog.Load().ByURI["ui://ok"]
	got, _ := json.Marshal(d.resource.Meta)
	want := `{"ui":{"csp":{"connectDomains":["https://api.example.com","wss://realtime.example.com:8443","http://localhost:3000","http://127.0.0.1:8080","http://[::1]:9000"],` +
		`"resourceDomains":["https://*.example.com","https://cdn.example.com/"],"frameDomains":["https://www.youtube.com"],"baseUriDomains":["https://cdn.example.com"]},` +
		`"permissions":{"camera":{},"clipboardWrite":{}},"domain":"a904794854a047f6.claudemcpcontent.com","prefersBorder":false}}`
	if string(got) != want {
		t.Errorf("resources/list _meta\n got %s\nwant %s", got, want)
	}
	if d.resource.MIMEType != mcp.MIMETypeApp {
		t.Errorf("MIME type %q", d.resource.MIMEType)
	}
}

func TestToolUIMeta(t *testing.T) {
	r := newTestRouter()
	r.Tool("view", nop, Description("x"), UIResource("ui://v"), Meta(mcp.Meta{"com.example/k": 1}))
	r.Tool("app_only", nop, Description("x"), UIResource("ui://v"), Visibility(mcp.VisibilityApp))
	r.Tool("legacy", nop, Description("x"), Meta(mcp.Meta{"ui/resourceUri": "ui://v"}))
	r.Tool("raw", nop, Description("x"), Meta(mcp.Meta{"ui": map[string]any{"visibility": []string{"model"}}}))
	r.Tool("plain", nop, Description("x"))
	cat := r.catalog.Load()
	for name, want := range map[string]string{
		"view":     `{"com.example/k":1,"ui":{"resourceUri":"ui://v"},"ui/resourceUri":"ui://v"}`,
		"app_only": `{"ui":{"resourceUri":"ui://v","visibility":["app"]},"ui/resourceUri":"ui://v"}`,
		"legacy":   `{"ui":{"resourceUri":"ui://v"},"ui/resourceUri":"ui://v"}`,
		"raw":      `{"ui":{"visibility":["model"]}}`,
		"plain":    `null`,
	} {
		got, _ := json.Marshal(cat.ByTool[name].tool.Meta)
		if string(got) != want {
			t.Errorf("%s: _meta %s, want %s", name, got, want)
		}
	}
}

func TestUIPageTemplateRendersPerCaller(t *testing.T) {
	tmpl := template.Must(template.New("v").Parse(`<!DOCTYPE html><p>{{.}}</p>`))
	p := HTMLTemplate(tmpl, func(c *Context) (any, error) { return c.Principal() + " <&>", nil })
	if err := p.load(); err != nil {
		t.Fatal(err)
	}
	got, err := p.render(&Context{grant: &grant{principal: "ann"}})
	if err != nil || got != `<!DOCTYPE html><p>ann &lt;&amp;&gt;</p>` {
		t.Errorf("render = %q, %v", got, err)
	}
	// A page per caller is no page to share; Cache still decides.
	r := newTestRouter()
	r.UI("ui://mine", p, Description("x"))
	r.UI("ui://shared", p, Description("x"), Cache(time.Minute, mcp.CachePublic))
	r.UI("ui://fixed", HTML(page), Description("x"))
	cat := r.catalog.Load()
	if c := cat.ByURI["ui://mine"].cache; c == nil || c.visibility != mcp.CachePrivate {
		t.Errorf("a template's reads cache as %+v, want private", c)
	}
	if c := cat.ByURI["ui://shared"].cache; c == nil || *c != (cacheHint{time.Minute, mcp.CachePublic}) {
		t.Errorf("Cache gave %+v", c)
	}
	if c := cat.ByURI["ui://fixed"].cache; c != nil {
		t.Errorf("a fixed page's reads cache as %+v, want the router's default", c)
	}
}

func TestExtensionOption(t *testing.T) {
	for _, tc := range []struct {
		id       string
		settings any
		want     string
	}{
		{"audit", nil, "not an extension identifier"},
		{"com.example/", nil, "not an extension identifier"},
		{"1com.example/audit", nil, "not an extension identifier"},
		{mcp.ExtensionUI, nil, "declares io.modelcontextprotocol/ui itself"},
		{mcp.ExtensionTasks, nil, "itself"},
		{"com.example/audit", []string{"a"}, "must be a JSON object"},
		{"com.example/audit", func() {}, "settings of com.example/audit"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			defer func() {
				v := recover()
				err, _ := v.(error)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("panic %v, want one containing %q", v, tc.want)
				}
			}()
			NewRouter("t", "1", Extension(tc.id, tc.settings))
		})
	}
	t.Run("twice", func(t *testing.T) {
		defer func() {
			if err, _ := recover().(error); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Errorf("panic %v", err)
			}
		}()
		NewRouter("t", "1", Extension("com.example/a", nil), Extension("com.example/a", nil))
	})
	r := NewRouter("t", "1", Extension("com.example/audit", map[string]any{"level": 2}), Extension("org.example.x/y", nil))
	got, _ := json.Marshal(r.extensions(r.catalog.Load(), true))
	if want := `{"com.example/audit":{"level":2},"org.example.x/y":{}}`; string(got) != want {
		t.Errorf("extensions %s, want %s", got, want)
	}
}
