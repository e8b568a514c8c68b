package integration

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	echo5 "github.com/labstack/echo/v5"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/echov5"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/middleware"
)

// authOnEchoV5 makes newAuthServer mount its router on Echo v5 with
// echov5.Mount, echov5.JWT and echov5.MountMetadata instead of Echo v4.
// The tests of this package do not run in parallel.
var authOnEchoV5 bool

// echoV5Servers counts the authServers built on Echo v5.
var echoV5Servers atomic.Int64

// echoV5 is the Echo v5 application of an authServer: the same metadata,
// JWT, rate limit and watch as the Echo v4 one.
func (as *authServer) echoV5(cfg auth.Config, rate middleware.RateLimitConfig) http.Handler {
	echoV5Servers.Add(1)
	e := echo5.New()
	e.Use(func(next echo5.HandlerFunc) echo5.HandlerFunc {
		return func(c *echo5.Context) (err error) {
			defer func() {
				if v := recover(); v != nil {
					as.panics.Add(1)
					err = echo5.NewHTTPError(http.StatusInternalServerError, "panic")
				}
				var he *echo5.HTTPError
				res, _ := echo5.UnwrapResponse(c.Response())
				if (res != nil && res.Status >= 500) || (errors.As(err, &he) && he.Code >= 500) {
					as.failures.Add(1)
				}
			}()
			return next(c)
		}
	})
	echov5.MountMetadata(e, cfg)
	echov5.Mount(as.r, e.Group("/mcp", echov5.JWT(cfg), echo5.WrapMiddleware(middleware.RateLimitWithConfig(rate))))
	return e
}

// TestEchoV5 runs the tests of the Echo v4 mount with auth.JWT against
// the Echo v5 mount with echov5.JWT.
func TestEchoV5(t *testing.T) {
	if testing.Short() {
		t.Skip("reruns the auth and mount tests on Echo v5; skipped with -short")
	}
	authOnEchoV5 = true
	t.Cleanup(func() { authOnEchoV5 = false })
	for name, test := range map[string]func(*testing.T){
		"AuthScopesFilterEveryListInBothEras":                   TestAuthScopesFilterEveryListInBothEras,
		"AuthMissingScopeIs403StepUpInBothEras":                 TestAuthMissingScopeIs403StepUpInBothEras,
		"AuthScopesComposeWithConnectAllowList":                 TestAuthScopesComposeWithConnectAllowList,
		"AuthResourceUpdatedSkipsCallersWhoseScopesHideIt":      TestAuthResourceUpdatedSkipsCallersWhoseScopesHideIt,
		"AuthMetadataAndChallenges":                             TestAuthMetadataAndChallenges,
		"AuthRouterChallengesFollowTheAuthConfig":               TestAuthRouterChallengesFollowTheAuthConfig,
		"AuthTokenAttacks":                                      TestAuthTokenAttacks,
		"AuthJWKSUnknownKidRefreshesOnceThen401":                TestAuthJWKSUnknownKidRefreshesOnceThen401,
		"AuthSessionHijackIs404":                                TestAuthSessionHijackIs404,
		"AuthRequestStateIsBoundToThePrincipal":                 TestAuthRequestStateIsBoundToThePrincipal,
		"AuthSpoofedHostOrOriginIs403":                          TestAuthSpoofedHostOrOriginIs403,
		"AuthBodyBombIs413":                                     TestAuthBodyBombIs413,
		"AuthDeeplyNestedJSONIs400ParseError":                   TestAuthDeeplyNestedJSONIs400ParseError,
		"AuthClientThatNeverReads":                              TestAuthClientThatNeverReads,
		"AuthBroadcastDoesNotWaitForAListenerThatNeverReads":    TestAuthBroadcastDoesNotWaitForAListenerThatNeverReads,
		"AuthRateLimitIs429WithRetryAfter":                      TestAuthRateLimitIs429WithRetryAfter,
		"RateLimitCountsBatchRequests":                          TestRateLimitCountsBatchRequests,
		"RefusalsDoNotWaitForTheBody":                           TestRefusalsDoNotWaitForTheBody,
		"AuthHugeBatch":                                         TestAuthHugeBatch,
		"AuthJWKSDown":                                          TestAuthJWKSDown,
		"EchoV5MountRunsGroupMiddlewareBeforeConnectAndStreams": testEchoV5GroupMiddlewareAndStreaming,
	} {
		t.Run(name, test)
	}
	if echoV5Servers.Load() < 17 {
		t.Errorf("only %d auth servers ran on Echo v5", echoV5Servers.Load())
	}
}

// testEchoV5GroupMiddlewareAndStreaming is TestEchoMountRunsGroupMiddlewareBeforeConnect
// on Echo v5: group middleware runs before connect, connect and handlers
// reach the v5 context, and answers stream through v5's response writer.
func testEchoV5GroupMiddlewareAndStreaming(t *testing.T) {
	r := fixture.New(quiet)
	var after, before atomic.Int32 // connects after and before the group middleware
	var sawInHandler atomic.Bool
	r.Connect(func(c *specter.Context) error {
		if ec := echov5.Context(c); ec != nil && c.Echo() == nil && ec.Get("mw") == "ran" {
			after.Add(1)
		} else {
			before.Add(1)
		}
		return nil
	})
	r.Tool("whoami", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		sawInHandler.Store(echov5.Context(c) != nil && echov5.Context(c).Get("mw") == "ran" && c.Echo() == nil)
		return specter.Reply(echov5.Context(c).Request().Header.Get("X-Caller"))
	}, specter.Description("Who calls"))
	e := echo5.New()
	echov5.Mount(r, e.Group("/mcp", func(next echo5.HandlerFunc) echo5.HandlerFunc {
		return func(c *echo5.Context) error {
			c.Set("mw", "ran")
			return next(c)
		}
	}))
	srv := httptest.NewServer(e)
	defer srv.Close()
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	c := mcptest.NewClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	c.Header.Set("X-Caller", "ada")
	c.OnMessage = (&checker{t: t, c: c, count: new(atomic.Int64)}).observe
	if _, err := c.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	if after.Load() == 0 || before.Load() != 0 {
		t.Fatalf("connect ran %d times after the group middleware with the v5 context, %d times not", after.Load(), before.Load())
	}
	res, _, err := c.CallTool(ctx(t), "whoami", nil)
	if err != nil || text(t, res) != "ada" || !sawInHandler.Load() {
		t.Fatalf("handler with the v5 context: %+v %v %v", res, err, sawInHandler.Load())
	}
	// Streaming works through Echo v5's response writer.
	resp, err := c.Call(ctx(t), "tools/call", map[string]any{"name": "test_tool_with_progress", "_meta": map[string]any{"progressToken": 1}})
	if err != nil || !resp.Streamed || len(resp.Notifications) != 3 {
		t.Fatalf("streamed through Echo v5: %+v %v", resp, err)
	}
	s, err := c.Listen(ctx(t), "")
	if err != nil {
		t.Fatalf("GET through Echo v5: %v", err)
	}
	r.NotifyToolsChanged()
	if m, _, err := s.Next(); err != nil || m.Method != "notifications/tools/list_changed" {
		t.Fatalf("GET stream through Echo v5: %+v %v", m, err)
	}
	s.Close()
	if status, err := c.Delete(ctx(t)); err != nil || status != http.StatusNoContent && status != http.StatusOK {
		t.Fatalf("DELETE through Echo v5: %d %v", status, err)
	}

	// The 2026-07-28 wire: a streamed call and a listen stream.
	after.Store(0)
	m := mcptest.NewStatelessClient(srv.URL + "/mcp")
	m.HTTP = srv.Client()
	if _, resp, err := m.CallTool(ctx(t), "test_tool_with_progress", nil, mcptest.ProgressToken(1)); err != nil || !resp.Streamed || len(resp.Notifications) != 3 {
		t.Fatalf("2026-07-28 streamed through Echo v5: %+v %v", resp, err)
	}
	sub := listen(t, m, mcp.SubscriptionFilter{ToolsListChanged: true})
	r.NotifyToolsChanged()
	expect(t, sub, toolsChanged)
	if after.Load() == 0 || before.Load() != 0 {
		t.Fatalf("2026-07-28: connect ran %d times after the group middleware, %d times not", after.Load(), before.Load())
	}
}

func TestEchoV5ContextOutsideTheMountIsNil(t *testing.T) {
	if echov5.Context(nil) != nil {
		t.Error("a nil Context has an Echo v5 context")
	}
	r := fixture.New(quiet)
	var got atomic.Bool
	r.Connect(func(c *specter.Context) error { got.Store(echov5.Context(c) != nil); return nil })
	e := newEnv(t, r)
	e.session(nil, "2025-11-25")
	if got.Load() {
		t.Error("a router served as a plain http.Handler has an Echo v5 context")
	}
}
