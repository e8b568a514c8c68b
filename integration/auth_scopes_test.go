package integration

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/principal"
)

// authLevels name the items authDeclareScoped declares of each kind: open
// to every caller, needing studies:read, needing studies:write, and kept
// for admins by a policy.
var authLevels = []string{"open", "read", "write", "admin"}

// authIsAdmin is the policy of the "admin" items: a "role" claim.
func authIsAdmin(caller *principal.Principal) bool {
	return caller != nil && caller.Claims["role"] == "admin"
}

// authDeclareScoped declares a tool, a prompt, a resource and an
// enumerable, completable resource template for every level. Callers whose
// token has a "plan" claim of "basic" may use only open_tool and
// read_tool (connect's allow-list).
func authDeclareScoped(r *specter.Router) {
	for _, level := range authLevels {
		var rule []specter.Option
		switch level {
		case "read":
			rule = []specter.Option{specter.Scopes("studies:read")}
		case "write":
			rule = []specter.Option{specter.Scopes("studies:write")}
		case "admin":
			rule = []specter.Option{specter.Policy(authIsAdmin)}
		}
		with := func(opts ...specter.Option) []specter.Option { return append(slices.Clone(rule), opts...) }
		r.Tool(level+"_tool", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			return specter.Reply(level + " tool used by " + c.Principal())
		}, with(specter.Description("The "+level+" tool"))...)
		r.Prompt(level+"_prompt", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
			return specter.Reply(level + " prompt about " + p.String("topic"))
		}, with(specter.Description("The "+level+" prompt"), params.String("topic"),
			specter.Complete("topic", specter.Values("alpha", "beta")))...)
		r.Resource("app://"+level, func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply("the " + level + " resource")
		}, with(specter.Description("The "+level+" resource"))...)
		r.Resource("app://"+level+"/{id}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
			return specter.Reply(level + " item " + p.String("id"))
		}, with(specter.Description("The "+level+" items"),
			specter.Complete("id", specter.Values("1", "2")),
			specter.List(func(specter.Params, *specter.Request, *specter.Context) specter.Result {
				return specter.Reply([]mcp.Resource{{URI: "app://" + level + "/1", Name: level + "-1"}})
			}))...)
	}
}

// authPlans is the connect step of the scopes tests: the "basic" plan
// allows two tools.
func authPlans(c *specter.Context) error {
	if caller := c.Caller(); caller != nil && caller.Claims["plan"] == "basic" {
		c.AllowTools("open_tool", "read_tool")
	}
	return nil
}

// authView is what one caller sees: the names of every list, and which
// items completion answers for.
type authView struct {
	tools, prompts, resources, templates, completes []string
}

// authExpect is what a caller holding the given levels sees.
func authExpect(levels ...string) authView {
	var v authView
	for _, l := range levels {
		v.tools = append(v.tools, l+"_tool")
		v.prompts = append(v.prompts, l+"_prompt")
		v.resources = append(v.resources, "app://"+l, "app://"+l+"/1")
		v.templates = append(v.templates, "app://"+l+"/{id}")
		v.completes = append(v.completes, l+"_prompt", "app://"+l+"/{id}")
	}
	return v
}

// authCallers are the tokens of the scopes tests and what each sees.
var authCallers = []struct {
	sub, scope string
	admin      bool
	sees       authView
}{
	{"nobody", "", false, authExpect("open")},
	{"reader", "studies:read", false, authExpect("open", "read")},
	{"writer", "studies:read studies:write", false, authExpect("open", "read", "write")},
	{"admin", "", true, authExpect("open", "admin")},
}

func (as *authServer) callerToken(t testing.TB, sub, scope string, admin bool) string {
	return as.token(t, sub, scope, func(c jwt.MapClaims) {
		if admin {
			c["role"] = "admin"
		}
	})
}

// authCaller is one era's client, reduced to what the scopes tests need:
// a request's answer, with the caching hints of a 2026-07-28 result.
type authCaller func(method string, params map[string]any) *mcptest.Response

func (as *authServer) legacyCaller(t testing.TB, token string) authCaller {
	c := as.session(t, token, mcp.LatestSessionVersion)
	return func(method string, params map[string]any) *mcptest.Response {
		t.Helper()
		var p any
		if params != nil {
			p = params
		}
		resp, err := c.Call(ctx(t), method, p)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return resp
	}
}

func (as *authServer) statelessCaller(t testing.TB, token string) authCaller {
	c := as.stateless(t, token)
	return func(method string, params map[string]any) *mcptest.Response {
		t.Helper()
		resp, err := c.Call(ctx(t), method, params)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return resp
	}
}

// authEras are the two clients every scopes test runs with.
var authEras = []struct {
	name      string
	stateless bool
}{{"2025-11-25", false}, {"2026-07-28", true}}

func (as *authServer) caller(t testing.TB, stateless bool, token string) authCaller {
	if stateless {
		return as.statelessCaller(t, token)
	}
	return as.legacyCaller(t, token)
}

// authSeen lists everything call's caller sees and tries completion on every
// declared prompt and template. On the 2026-07-28 wire each list must be
// marked cacheScope "private": it depends on the caller.
func authSeen(t *testing.T, call authCaller, stateless bool) authView {
	t.Helper()
	// list walks every page of a list and returns the sorted names.
	list := func(method, field, key string) []string {
		t.Helper()
		var names []string
		cursor := ""
		for page := 0; ; page++ {
			var params map[string]any
			if cursor != "" {
				params = map[string]any{"cursor": cursor}
			}
			resp := call(method, params)
			if resp.Error != nil {
				t.Fatalf("%s: %v", method, resp.Error)
			}
			var res struct {
				NextCursor string `json:"nextCursor"`
				mcptest.StatelessResult
			}
			var fields map[string]json.RawMessage
			var items []map[string]any
			if err := resp.Decode(&res); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
			if err := resp.Decode(&fields); err != nil || json.Unmarshal(fields[field], &items) != nil {
				t.Fatalf("%s: no %s in %s", method, field, resp.Result)
			}
			if stateless && res.CacheScope != mcp.CachePrivate {
				t.Errorf("%s: cacheScope %q, want private", method, res.CacheScope)
			}
			for _, it := range items {
				names = append(names, it[key].(string))
			}
			if cursor = res.NextCursor; cursor == "" {
				break
			}
			if page > 10 {
				t.Fatalf("%s: more than 10 pages", method)
			}
		}
		slices.Sort(names)
		return names
	}
	v := authView{
		tools:     list("tools/list", "tools", "name"),
		prompts:   list("prompts/list", "prompts", "name"),
		resources: list("resources/list", "resources", "uri"),
		templates: list("resources/templates/list", "resourceTemplates", "uriTemplate"),
	}
	for _, level := range authLevels {
		for _, ref := range []map[string]any{
			{"ref": map[string]string{"type": "ref/prompt", "name": level + "_prompt"}, "argument": map[string]string{"name": "topic", "value": "a"}},
			{"ref": map[string]string{"type": "ref/resource", "uri": "app://" + level + "/{id}"}, "argument": map[string]string{"name": "id", "value": ""}},
		} {
			r := ref["ref"].(map[string]string)
			name := r["name"] + r["uri"]
			resp := call("completion/complete", ref)
			if resp.Error != nil {
				if resp.Error.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("complete %s: error %d %q, want -32602 for a hidden item", name, resp.Error.Code, resp.Error.Message)
				}
				continue
			}
			var res mcp.CompleteResult
			if err := resp.Decode(&res); err != nil || len(res.Completion.Values) == 0 {
				t.Errorf("complete %s: %+v %v", name, res, err)
			}
			v.completes = append(v.completes, name)
		}
	}
	return v
}

func authSorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestAuthScopesFilterEveryListInBothEras(t *testing.T) {
	as := newAuthServer(t, authSetup{declare: authDeclareScoped, connect: authPlans})
	for _, era := range authEras {
		for _, caller := range authCallers {
			t.Run(era.name+"/"+caller.sub, func(t *testing.T) {
				got := authSeen(t, as.caller(t, era.stateless, as.callerToken(t, caller.sub, caller.scope, caller.admin)), era.stateless)
				want := caller.sees
				for _, l := range []struct {
					what      string
					got, want []string
				}{
					{"tools/list", got.tools, want.tools},
					{"prompts/list", got.prompts, want.prompts},
					{"resources/list", got.resources, want.resources},
					{"resources/templates/list", got.templates, want.templates},
					{"completion/complete", authSorted(got.completes), authSorted(want.completes)},
				} {
					if !slices.Equal(l.got, authSorted(l.want)) {
						t.Errorf("%s with scope %q: %v, want %v", l.what, caller.scope, l.got, authSorted(l.want))
					}
				}
			})
		}
	}
	if as.checked.Load() == 0 {
		t.Error("no message was checked against the schema")
	}
}

// authRefusal checks a refused use: HTTP status, JSON-RPC code and the
// exact WWW-Authenticate challenge ("" for none).
func authRefusal(t *testing.T, what string, resp *mcptest.Response, status, code int, challenge string) {
	t.Helper()
	if resp.Status != status || resp.Error == nil || resp.Error.Code != code {
		t.Errorf("%s: HTTP %d error %+v, want HTTP %d error %d", what, resp.Status, resp.Error, status, code)
	}
	if got := resp.Header.Get("WWW-Authenticate"); got != challenge {
		t.Errorf("%s: WWW-Authenticate\n got %q\nwant %q", what, got, challenge)
	}
}

func TestAuthMissingScopeIs403StepUpInBothEras(t *testing.T) {
	as := newAuthServer(t, authSetup{declare: authDeclareScoped, connect: authPlans})
	for _, era := range authEras {
		t.Run(era.name, func(t *testing.T) {
			nobody := as.caller(t, era.stateless, as.token(t, "nobody", ""))
			reader := as.caller(t, era.stateless, as.token(t, "reader", "studies:read"))
			writer := as.caller(t, era.stateless, as.token(t, "writer", "studies:read studies:write"))
			forbidden := specter.CodeForbidden

			authRefusal(t, "reader calls write_tool", reader("tools/call", map[string]any{"name": "write_tool"}), 403, forbidden, as.stepUp("studies:write"))
			authRefusal(t, "nobody calls read_tool", nobody("tools/call", map[string]any{"name": "read_tool"}), 403, forbidden, as.stepUp("studies:read"))
			authRefusal(t, "reader gets write_prompt", reader("prompts/get", map[string]any{"name": "write_prompt", "arguments": map[string]string{"topic": "x"}}), 403, forbidden, as.stepUp("studies:write"))
			authRefusal(t, "nobody reads app://read", nobody("resources/read", map[string]any{"uri": "app://read"}), 403, forbidden, as.stepUp("studies:read"))
			authRefusal(t, "nobody reads app://read/7", nobody("resources/read", map[string]any{"uri": "app://read/7"}), 403, forbidden, as.stepUp("studies:read"))
			// A policy refuses without a challenge: no scope would help.
			authRefusal(t, "writer calls admin_tool", writer("tools/call", map[string]any{"name": "admin_tool"}), 403, forbidden, "")

			// With the scope, the same calls succeed.
			var res mcptest.ToolResult
			if resp := writer("tools/call", map[string]any{"name": "write_tool"}); resp.Decode(&res) != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "write tool used by writer" {
				t.Errorf("writer calls write_tool: HTTP %d %s %+v", resp.Status, resp.Result, resp.Error)
			}
			if resp := reader("resources/read", map[string]any{"uri": "app://read/7"}); resp.Error != nil || resp.Status != http.StatusOK {
				t.Errorf("reader reads app://read/7: HTTP %d %+v", resp.Status, resp.Error)
			}
		})
	}
}

func TestAuthScopesComposeWithConnectAllowList(t *testing.T) {
	as := newAuthServer(t, authSetup{declare: authDeclareScoped, connect: authPlans})
	basic := func(sub, scope string) string {
		return as.token(t, sub, scope, func(c jwt.MapClaims) { c["plan"] = "basic" })
	}
	// Outside the allow-list an item does not exist, whatever the scopes;
	// inside it, it still needs its scopes.
	unknownStatus := map[bool]int{false: http.StatusOK, true: http.StatusBadRequest}
	for _, era := range authEras {
		t.Run(era.name, func(t *testing.T) {
			full := as.caller(t, era.stateless, basic("basic-full", "studies:read studies:write"))
			bare := as.caller(t, era.stateless, basic("basic-bare", ""))
			if got := authSeen(t, full, era.stateless).tools; !slices.Equal(got, []string{"open_tool", "read_tool"}) {
				t.Errorf("basic plan with both scopes sees %v, want [open_tool read_tool]", got)
			}
			if got := authSeen(t, bare, era.stateless).tools; !slices.Equal(got, []string{"open_tool"}) {
				t.Errorf("basic plan without scopes sees %v, want [open_tool]", got)
			}
			authRefusal(t, "write_tool outside the plan", full("tools/call", map[string]any{"name": "write_tool"}), unknownStatus[era.stateless], jsonrpc.CodeInvalidParams, "")
			authRefusal(t, "read_tool in the plan without its scope", bare("tools/call", map[string]any{"name": "read_tool"}), 403, specter.CodeForbidden, as.stepUp("studies:read"))
		})
	}
}

func TestAuthPolicyHidingMakesStatelessListsPrivate(t *testing.T) {
	// Without authentication the caller is anonymous: only a policy that
	// hides something makes the answer depend on the caller.
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("open_tool", func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("ok") },
		specter.Description("Open"))
	r.Tool("admin_tool", func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("ok") },
		specter.Description("Admins only"), specter.Policy(authIsAdmin))
	r.Prompt("open_prompt", func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("hi") },
		specter.Description("Open"))
	e := newEnv(t, r)
	c := mcptest.NewStatelessClient(e.srv.URL + "/mcp")
	c.HTTP = e.srv.Client()
	c.OnMessage = (&statelessChecker{t: t, count: &e.checked}).observe
	for method, want := range map[string]string{"tools/list": mcp.CachePrivate, "prompts/list": mcp.CachePublic} {
		resp, err := c.Call(ctx(t), method, nil)
		var base mcptest.StatelessResult
		if err != nil || resp.Decode(&base) != nil || base.CacheScope != want {
			t.Errorf("anonymous %s: %+v %v; want cacheScope %q", method, resp, err, want)
		}
	}
	resp, err := c.Call(ctx(t), "tools/list", nil)
	var tools mcp.ListToolsResult
	if err != nil || resp.Decode(&tools) != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "open_tool" {
		t.Errorf("anonymous caller sees %+v (%v)", tools.Tools, err)
	}
}

// authNext returns the URI of the next notifications/resources/updated a
// stream delivers, failing the test for anything else.
type authNext func() string

func authUpdated(t *testing.T, m *jsonrpc.Message) string {
	t.Helper()
	var p struct {
		URI string `json:"uri"`
	}
	if m.Method != "notifications/resources/updated" || json.Unmarshal(m.Params, &p) != nil {
		t.Fatalf("unexpected message %s %s", m.Method, m.Params)
	}
	return p.URI
}

// authReceived notifies open until every stream delivered it (so that each
// listens), then the restricted resource and a sentinel, and returns
// whether each stream delivered the restricted one before the sentinel.
func authReceived(t *testing.T, r *specter.Router, open, restricted, sentinel string, streams ...authNext) []bool {
	t.Helper()
	for _, next := range streams {
		for {
			r.NotifyResourceUpdated(open)
			if next() == open {
				break
			}
		}
	}
	r.NotifyResourceUpdated(restricted)
	r.NotifyResourceUpdated(sentinel)
	got := make([]bool, len(streams))
	for i, next := range streams {
		for uri := next(); uri != sentinel; uri = next() {
			got[i] = got[i] || uri == restricted
		}
	}
	return got
}

func TestAuthResourceUpdatedSkipsCallersWhoseScopesHideIt(t *testing.T) {
	as := newAuthServer(t, authSetup{declare: authDeclareScoped})
	uris := []string{"app://read", "app://open", "app://open/1"}

	t.Run("2025-11-25", func(t *testing.T) {
		reader := as.session(t, as.token(t, "reader", "studies:read"), mcp.LatestSessionVersion)
		carol := as.session(t, as.token(t, "carol", "studies:read"), mcp.LatestSessionVersion)
		nobody := as.session(t, as.token(t, "nobody", ""), mcp.LatestSessionVersion)
		for _, c := range []*mcptest.Client{reader, carol} {
			for _, uri := range uris {
				if resp, err := c.Call(ctx(t), "resources/subscribe", map[string]string{"uri": uri}); err != nil || resp.Error != nil {
					t.Fatalf("subscribe %s: %+v %v", uri, resp, err)
				}
			}
		}
		// A hidden resource cannot be subscribed to: it does not exist.
		if resp, err := nobody.Call(ctx(t), "resources/subscribe", map[string]string{"uri": "app://read"}); err != nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeResourceNotFound {
			t.Errorf("nobody subscribes to app://read: %+v %v, want -32002", resp, err)
		}
		// Carol's next token lacks studies:read: her session now has
		// her narrower scopes.
		carol.Header.Set("Authorization", "Bearer "+as.token(t, "carol", ""))
		var nexts []authNext
		for _, c := range []*mcptest.Client{reader, carol} {
			s, err := c.Listen(ctx(t), "")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			nexts = append(nexts, func() string {
				m, _, err := s.Next()
				if err != nil {
					t.Fatalf("GET stream: %v", err)
				}
				return authUpdated(t, m)
			})
		}
		got := authReceived(t, as.r, "app://open", "app://read", "app://open/1", nexts...)
		if !got[0] || got[1] {
			t.Errorf("app://read updated reached reader %v and carol without the scope %v; want true, false", got[0], got[1])
		}
	})

	t.Run("2026-07-28", func(t *testing.T) {
		var nexts []authNext
		for _, tok := range []string{as.token(t, "reader", "studies:read"), as.token(t, "nobody", "")} {
			s, err := as.stateless(t, tok).Listen(ctx(t), mcp.SubscriptionFilter{ResourceSubscriptions: uris})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ack, err := s.Next(ctx(t))
			if err != nil || ack.Method != "notifications/subscriptions/acknowledged" {
				t.Fatalf("listen: %+v %v", ack, err)
			}
			nexts = append(nexts, func() string {
				c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				m, err := s.Next(c)
				if err != nil {
					t.Fatalf("listen stream: %v", err)
				}
				return authUpdated(t, m)
			})
		}
		got := authReceived(t, as.r, "app://open", "app://read", "app://open/1", nexts...)
		if !got[0] || got[1] {
			t.Errorf("app://read updated reached reader %v and nobody %v; want true, false", got[0], got[1])
		}
	})
}

func TestAuthMetadataAndChallenges(t *testing.T) {
	as := newAuthServer(t, authSetup{declare: authDeclareScoped})

	// The challenge names the metadata URL; a client fetches it, and the
	// root form, without a token.
	resp, _ := as.post(t, "", nil, strings.NewReader(authInitialize))
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != as.challenge("") {
		t.Fatalf("no token: status %d, challenge %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	root := strings.TrimSuffix(as.resource, "/mcp") + "/.well-known/oauth-protected-resource"
	if as.metadata != root+"/mcp" {
		t.Fatalf("metadata URL %s, want %s/mcp", as.metadata, root)
	}
	for _, url := range []string{as.metadata, root} {
		resp, err := as.srv.Client().Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: status %d, Content-Type %q, %v", url, resp.StatusCode, resp.Header.Get("Content-Type"), err)
		}
		// RFC 9728 §2: a JSON object whose members are strings or arrays
		// of strings; resource and authorization_servers as configured.
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("GET %s: %v: %s", url, err, body)
		}
		want := map[string]any{
			"resource":                 as.resource,
			"authorization_servers":    []any{authIssuer},
			"scopes_supported":         []any{"studies:read", "studies:write"},
			"bearer_methods_supported": []any{"header"},
			"resource_name":            "Specter auth tests",
		}
		if mustJSON(doc) != mustJSON(want) {
			t.Errorf("GET %s:\n got %s\nwant %s", url, mustJSON(doc), mustJSON(want))
		}
	}

	valid := as.token(t, "alice", "studies:read")
	expired := as.token(t, "alice", "studies:read", func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() })
	for _, tc := range []struct {
		name      string
		header    http.Header
		status    int
		challenge string
	}{
		{"no token", nil, 401, `Bearer resource_metadata="` + as.metadata + `", scope="studies:read studies:write"`},
		{"Basic credentials", http.Header{"Authorization": {"Basic YWxpY2U6cHc="}}, 401, `Bearer resource_metadata="` + as.metadata + `", scope="studies:read studies:write"`},
		{"invalid token", bearer("garbage.garbage.garbage"), 401, `Bearer resource_metadata="` + as.metadata + `", scope="studies:read studies:write", error="invalid_token"`},
		{"expired token", bearer(expired), 401, `Bearer resource_metadata="` + as.metadata + `", scope="studies:read studies:write", error="invalid_token"`},
		{"valid token", bearer(valid), 200, ""},
	} {
		for _, era := range []struct {
			name, body string
			header     http.Header
		}{
			{"2025-11-25", authInitialize, tc.header},
			{"2026-07-28", authStatelessDiscover, authStatelessHeader(tc.header)},
		} {
			resp, body := as.post(t, "", era.header, strings.NewReader(era.body))
			if resp.StatusCode != tc.status || resp.Header.Get("WWW-Authenticate") != tc.challenge {
				t.Errorf("%s (%s): status %d, WWW-Authenticate %q; want %d, %q (%.200s)",
					tc.name, era.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tc.status, tc.challenge, body)
			}
		}
	}
}

// The router's own 401 (connect refuses) and 403 (a missing scope) name
// the metadata URL auth.JWT's Config states, in both eras, even over a
// ResourceMetadata option (the fallback for apps without auth.JWT).
func TestAuthRouterChallengesFollowTheAuthConfig(t *testing.T) {
	as := newAuthServer(t, authSetup{
		router:  []specter.RouterOption{specter.ResourceMetadata("https://elsewhere.example.com/.well-known/oauth-protected-resource")},
		declare: authDeclareScoped,
		connect: func(c *specter.Context) error {
			if p := c.Caller(); p != nil && p.ID == "banned" {
				return specter.Unauthorized("banned")
			}
			return nil
		},
	})
	banned := bearer(as.token(t, "banned", "studies:read"))
	refused := `Bearer resource_metadata="` + as.metadata + `", error="invalid_token"`
	for _, era := range authEras {
		t.Run(era.name, func(t *testing.T) {
			body, header := authInitialize, banned
			if era.stateless {
				body, header = authStatelessDiscover, authStatelessHeader(banned)
			}
			resp, raw := as.post(t, "", header, strings.NewReader(body))
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != refused {
				t.Errorf("connect refuses: status %d, WWW-Authenticate\n got %q\nwant %q (%.200s)", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), refused, raw)
			}
			reader := as.caller(t, era.stateless, as.token(t, "reader", "studies:read"))
			authRefusal(t, "reader calls write_tool", reader("tools/call", map[string]any{"name": "write_tool"}), 403, specter.CodeForbidden, as.stepUp("studies:write"))
		})
	}
}
