package integration

import (
	"slices"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

func TestStatelessDiscover(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	resp := call(t, c, "server/discover", nil)
	var d mcp.DiscoverResult
	base := complete(t, resp, &d)
	if resp.Streamed || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("discover answered as %q (streamed %v), want plain JSON", resp.Header.Get("Content-Type"), resp.Streamed)
	}
	// Exactly what the stateless path serves: session-era revisions are
	// negotiated with initialize, not per request.
	if !slices.Equal(d.SupportedVersions, []string{"2026-07-28"}) {
		t.Errorf("supportedVersions %v, want [2026-07-28]", d.SupportedVersions)
	}
	for _, v := range d.SupportedVersions {
		vc := e.stateless()
		vc.Version = v
		complete(t, call(t, vc, "server/discover", nil), nil)
	}
	caps := d.Capabilities
	if caps.Tools == nil || !caps.Tools.ListChanged || caps.Prompts == nil || !caps.Prompts.ListChanged ||
		caps.Resources == nil || !caps.Resources.ListChanged || !caps.Resources.Subscribe ||
		caps.Logging == nil || caps.Completions == nil {
		t.Errorf("capabilities %+v", mustJSON(caps))
	}
	if info := serverInfo(t, base); info.Name != "mcp-conformance-test-server" || info.Version != "1.0.0" {
		t.Errorf("serverInfo %+v", info)
	}
	if base.TTLMs == nil || *base.TTLMs != 0 || base.CacheScope != mcp.CachePublic {
		t.Errorf("caching hints ttlMs=%v cacheScope=%q, want 0 and public", base.TTLMs, base.CacheScope)
	}
	if d.Instructions != "" {
		t.Errorf("instructions %q from a router that has none", d.Instructions)
	}

	// clientInfo is optional: a request without it is served.
	c.ClientInfo = nil
	complete(t, call(t, c, "server/discover", nil), nil)
}

func TestStatelessDiscoverInstructions(t *testing.T) {
	r := fixture.New(quiet, specter.Instructions("Use the test tools."))
	r.Connect(func(c *specter.Context) error {
		if who := c.HTTPRequest().Header.Get("X-User"); who != "" {
			c.PutInstructions("You are helping " + who)
		}
		return nil
	})
	e := newEnv(t, r)
	c := e.stateless()
	var d mcp.DiscoverResult
	if base := complete(t, call(t, c, "server/discover", nil), &d); d.Instructions != "Use the test tools." || base.CacheScope != mcp.CachePublic {
		t.Errorf("instructions %q, cacheScope %q", d.Instructions, base.CacheScope)
	}
	c.Header.Set("X-User", "ada")
	if complete(t, call(t, c, "server/discover", nil), &d); d.Instructions != "You are helping ada" {
		t.Errorf("per-caller instructions %q", d.Instructions)
	}
}

// everyMethod is one call of each 2026-07-28 method the fixture answers
// with a complete result.
var everyMethod = []struct {
	method    string
	params    map[string]any
	cacheable bool
}{
	{"server/discover", nil, true},
	{"tools/list", nil, true},
	{"tools/call", map[string]any{"name": "test_simple_text"}, false},
	{"prompts/list", nil, true},
	{"prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "a", "arg2": "b"}}, false},
	{"resources/list", nil, true},
	{"resources/templates/list", nil, true},
	{"resources/read", map[string]any{"uri": "test://static-text"}, true},
	{"resources/read", map[string]any{"uri": "test://template/42/data"}, true},
	{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": "te"}}, false},
}

func TestStatelessEveryResultHasResultTypeAndServerInfo(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	for _, m := range everyMethod {
		resp := call(t, c, m.method, m.params)
		base := complete(t, resp, nil)
		if info := serverInfo(t, base); info.Name != "mcp-conformance-test-server" || info.Version != "1.0.0" {
			t.Errorf("%s: serverInfo %+v", m.method, info)
		}
		if m.cacheable && (base.TTLMs == nil || *base.TTLMs < 0 || base.CacheScope != mcp.CachePublic) {
			t.Errorf("%s: ttlMs=%v cacheScope=%q, want caching hints (0, public)", m.method, base.TTLMs, base.CacheScope)
		}
	}
	if e.checked.Load() < int64(len(everyMethod)) {
		t.Errorf("only %d messages were schema-checked", e.checked.Load())
	}
}

// hints returns the caching hints of a complete result.
func hints(t *testing.T, resp *mcptest.Response) (int64, string) {
	t.Helper()
	base := complete(t, resp, nil)
	if base.TTLMs == nil {
		t.Fatalf("no ttlMs: %s", resp.Result)
	}
	return *base.TTLMs, base.CacheScope
}

func TestStatelessCacheOptionPerRouterAndPerResource(t *testing.T) {
	r := fixture.New(quiet, specter.Cache(5*time.Second, mcp.CachePublic))
	r.Resource("test://cached", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("cached for a minute")
	}, specter.Description("A resource cached for a minute"), specter.Cache(time.Minute, mcp.CachePublic))
	r.Resource("test://mine/{id}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("mine " + p.String("id"))
	}, specter.Description("A per-user template"), specter.Cache(2*time.Second, mcp.CachePrivate))
	e := newEnv(t, r)
	c := e.stateless()
	for _, m := range everyMethod {
		if !m.cacheable {
			continue
		}
		if ttl, scope := hints(t, call(t, c, m.method, m.params)); ttl != 5000 || scope != mcp.CachePublic {
			t.Errorf("%s %v: ttlMs=%d cacheScope=%q, want the router's 5000 public", m.method, m.params, ttl, scope)
		}
	}
	for _, tc := range []struct {
		uri   string
		ttl   int64
		scope string
	}{
		{"test://cached", 60000, mcp.CachePublic},
		{"test://mine/7", 2000, mcp.CachePrivate},
		{"test://static-text", 5000, mcp.CachePublic},
	} {
		if ttl, scope := hints(t, call(t, c, "resources/read", map[string]any{"uri": tc.uri})); ttl != tc.ttl || scope != tc.scope {
			t.Errorf("read %s: ttlMs=%d cacheScope=%q, want %d %s", tc.uri, ttl, scope, tc.ttl, tc.scope)
		}
	}

	private := newEnv(t, fixture.New(quiet, specter.Cache(30*time.Second, mcp.CachePrivate)))
	pc := private.stateless()
	for _, m := range everyMethod {
		if m.cacheable {
			if ttl, scope := hints(t, call(t, pc, m.method, m.params)); ttl != 30000 || scope != mcp.CachePrivate {
				t.Errorf("%s: ttlMs=%d cacheScope=%q, want 30000 private", m.method, ttl, scope)
			}
		}
	}

	odd := newEnv(t, fixture.New(quiet, specter.Cache(-time.Second, "shared")))
	if ttl, scope := hints(t, call(t, odd.stateless(), "tools/list", nil)); ttl != 0 || scope != mcp.CachePublic {
		t.Errorf("Cache(-1s, \"shared\"): ttlMs=%d cacheScope=%q, want 0 public", ttl, scope)
	}
}

func TestStatelessCacheScopeIsPrivateWhenConnectDecides(t *testing.T) {
	r := fixture.New(quiet, specter.Cache(5*time.Second, mcp.CachePublic))
	r.Connect(func(c *specter.Context) error {
		switch c.HTTPRequest().Header.Get("X-Mode") {
		case "filter":
			c.AllowTools("test_simple_text")
		case "prompts":
			c.AllowPrompts("test_simple_prompt")
		case "principal":
			c.SetPrincipal("ada")
		}
		return nil
	})
	e := newEnv(t, r)
	for _, tc := range []struct{ mode, scope string }{
		{"", mcp.CachePublic},
		{"filter", mcp.CachePrivate},
		{"prompts", mcp.CachePrivate},
		{"principal", mcp.CachePrivate},
	} {
		c := e.stateless()
		c.Header.Set("X-Mode", tc.mode)
		for _, m := range everyMethod {
			if !m.cacheable {
				continue
			}
			if ttl, scope := hints(t, call(t, c, m.method, m.params)); scope != tc.scope || ttl != 5000 {
				t.Errorf("mode %q %s: ttlMs=%d cacheScope=%q, want 5000 %s", tc.mode, m.method, ttl, scope, tc.scope)
			}
		}
	}
	c := e.stateless()
	c.Header.Set("X-Mode", "filter")
	var list mcp.ListToolsResult
	complete(t, call(t, c, "tools/list", nil), &list)
	if len(list.Tools) != 1 || list.Tools[0].Name != "test_simple_text" {
		t.Errorf("filtered tools/list: %+v", list.Tools)
	}
}

func TestStatelessCachingHintsOnEveryPage(t *testing.T) {
	e := newEnv(t, fixture.New(quiet, specter.PageSize(4), specter.Cache(time.Second, mcp.CachePublic)))
	c := e.stateless()
	fx := newEnv(t, nil).stateless()
	var all mcp.ListToolsResult
	complete(t, call(t, fx, "tools/list", nil), &all)
	seen, pages := 0, 0
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp := call(t, c, "tools/list", params)
		var page mcp.ListToolsResult
		base := complete(t, resp, &page)
		if base.TTLMs == nil || *base.TTLMs != 1000 || base.CacheScope != mcp.CachePublic {
			t.Errorf("page %d: ttlMs=%v cacheScope=%q", pages, base.TTLMs, base.CacheScope)
		}
		seen += len(page.Tools)
		pages++
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if seen != len(all.Tools) || pages < 2 {
		t.Errorf("%d tools on %d pages, want %d on several", seen, pages, len(all.Tools))
	}
	// The same tools in the same order on repeated calls.
	for range 2 {
		var again mcp.ListToolsResult
		complete(t, call(t, fx, "tools/list", nil), &again)
		if len(again.Tools) != len(all.Tools) {
			t.Fatalf("tools/list has %d tools, then %d", len(all.Tools), len(again.Tools))
		}
		for i := range all.Tools {
			if all.Tools[i].Name != again.Tools[i].Name {
				t.Fatalf("tools/list order changed at %d: %s, then %s", i, all.Tools[i].Name, again.Tools[i].Name)
			}
		}
	}
}
