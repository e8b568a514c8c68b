package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/oauth"
	"github.com/specter-mcp/specter/gateway"
	"github.com/specter-mcp/specter/mcp"
)

// rights is a downstream Specter server behind OAuth whose tools depend
// on the caller's scopes, its authorization server (which exchanges
// tokens the gateway's callers hold for its own, RFC 8693), and what it
// saw.
type rights struct {
	url     string
	dev     *auth.DevIssuer // the downstream's tokens
	gateway *auth.DevIssuer // the gateway callers' tokens

	ended chan string // the principals of the sessions that ended

	mu          sync.Mutex
	seen        []string // bearer tokens the server received
	initializes int      // requests without a session (initialize, discovery)
	exchanges   int
}

func newRights(t *testing.T) *rights {
	t.Helper()
	rt := &rights{ended: make(chan string, 16)}
	as := httptest.NewServer(http.HandlerFunc(rt.authorizationServer))
	t.Cleanup(as.Close)
	srv := httptest.NewUnstartedServer(nil)
	rt.url = "http://" + srv.Listener.Addr().String() + "/mcp"
	rt.dev = &auth.DevIssuer{Secret: []byte("the downstream secret of 32 bytes!"), Issuer: as.URL, Resource: rt.url}
	rt.gateway = auth.NewDevIssuer("http://127.0.0.1/mcp")

	r := specter.NewRouter("rights", "1.0.0", specter.Logger(zerolog.Nop()), specter.OnTerminate(func(_ string, s *specter.Session) {
		select {
		case rt.ended <- s.Principal():
		default:
		}
	}))
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	for _, name := range []string{"read", "delete"} {
		r.Tool(name, func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			return specter.Reply(name + " by " + c.Principal())
		}, specter.Description("The "+name+" tool"))
	}
	r.Connect(func(c *specter.Context) error {
		if !c.Caller().HasScope("notes:delete") {
			c.HideTools("delete")
		}
		return nil
	})
	cfg := rt.dev.Config()
	cfg.Scopes = []string{"notes:read", "notes:delete"}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	auth.MountMetadata(e, cfg)
	r.Mount(e.Group("/mcp", func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			rt.mu.Lock()
			if tok, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer "); ok {
				rt.seen = append(rt.seen, tok)
			}
			if c.Request().Header.Get("Mcp-Session-Id") == "" && c.Request().Method == http.MethodPost {
				rt.initializes++
			}
			rt.mu.Unlock()
			return next(c)
		}
	}, auth.JWT(cfg)))
	srv.Config.Handler = e
	srv.Start()
	t.Cleanup(srv.Close)
	return rt
}

// authorizationServer publishes its metadata and exchanges a gateway
// caller's token, for the gateway (client "gw"), for a downstream token
// with the caller's subject and scopes.
func (rt *rights) authorizationServer(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	iss := "http://" + r.Host
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		reply(http.StatusOK, map[string]any{"issuer": iss, "token_endpoint": iss + "/token", "authorization_endpoint": iss + "/authorize",
			"grant_types_supported": []string{"urn:ietf:params:oauth:grant-type:token-exchange"}})
		return
	case "/token":
	default:
		http.NotFound(w, r)
		return
	}
	if id, secret, ok := r.BasicAuth(); !ok || id != "gw" || secret != "gw-secret" {
		reply(http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	if r.PostFormValue("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" || r.PostFormValue("resource") != rt.url || r.PostFormValue("audience") != rt.url {
		reply(http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	claims := jwt.MapClaims{}
	if _, err := jwt.ParseWithClaims(r.PostFormValue("subject_token"), claims, func(*jwt.Token) (any, error) { return rt.gateway.Secret, nil },
		jwt.WithAudience(rt.gateway.Resource), jwt.WithValidMethods([]string{"HS256"})); err != nil {
		reply(http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": err.Error()})
		return
	}
	rt.mu.Lock()
	rt.exchanges++
	rt.mu.Unlock()
	sub, _ := claims["sub"].(string)
	scope, _ := claims["scope"].(string)
	reply(http.StatusOK, map[string]any{"access_token": rt.dev.Token(sub, strings.Fields(scope)...), "token_type": "Bearer", "expires_in": 3600,
		"issued_token_type": "urn:ietf:params:oauth:token-type:access_token"})
}

// perCallerGateway serves a gateway over the server connected per caller
// as "notes", behind the gateway's own authentication.
func perCallerGateway(t *testing.T, rt *rights, s gateway.CallerServer) string {
	t.Helper()
	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = gw.Shutdown(context.Background()) })
	g, err := gateway.New(t.Context(), nil, gw, gateway.PerCaller("notes", s))
	t.Cleanup(func() { _ = g.Close(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	gw.Connect(g.Connect)
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	gw.Mount(e.Group("/mcp", auth.JWT(rt.gateway.Config())))
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func caller(t *testing.T, url, token, version string) *client.Client {
	t.Helper()
	c, err := client.Connect(t.Context(), &client.HTTPTransport{URL: url, Header: http.Header{"Authorization": {"Bearer " + token}}}, &client.Options{Version: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	var names []string
	for tool, err := range c.Tools(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// Two callers with different rights on the gateway see, and may call,
// different tools of a server the gateway reaches with a token exchanged
// for each of them; the server never sees a caller's own token.
func TestPerCallerIdentityByTokenExchange(t *testing.T) {
	eras(t, func(t *testing.T, up, down string) {
		rt := newRights(t)
		url := perCallerGateway(t, rt, gateway.CallerServer{URL: rt.url, Exchange: &oauth.Client{ID: "gw", Secret: "gw-secret"}, Issuers: []string{rt.dev.Issuer},
			Options: &client.Options{Version: down}})
		adaToken, bobToken := rt.gateway.Token("ada", "notes:read", "notes:delete"), rt.gateway.Token("bob", "notes:read")
		ada, bob := caller(t, url, adaToken, up), caller(t, url, bobToken, up)
		if got := toolNames(t, ada); !slices.Equal(got, []string{"notes.delete", "notes.read"}) {
			t.Errorf("ada sees %v", got)
		}
		if got := toolNames(t, bob); !slices.Equal(got, []string{"notes.read"}) {
			t.Errorf("bob sees %v", got)
		}
		if got := text(t, ada, "notes.delete", nil); got != "delete by ada" {
			t.Errorf("ada's delete: %q", got)
		}
		if got := text(t, bob, "notes.read", nil); got != "read by bob" {
			t.Errorf("bob's read: %q", got)
		}
		if res, err := bob.CallTool(t.Context(), "notes.delete", nil); err == nil && !res.IsError {
			t.Errorf("bob deleted: %+v", res)
		}
		rt.mu.Lock()
		defer rt.mu.Unlock()
		for _, tok := range rt.seen {
			if tok == adaToken || tok == bobToken {
				t.Fatal("the server received a caller's own token")
			}
		}
		if rt.exchanges != 2 {
			t.Errorf("%d exchanges, want one per caller", rt.exchanges)
		}
	})
}

// A credential function of the application's gives each caller its
// credential; the pool keeps at most MaxConnections, closing the least
// recently used idle one to make room.
func TestPerCallerCredentialAndBoundedPool(t *testing.T) {
	for max, want := range map[int]int{1: 4, 2: 2} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			rt := newRights(t)
			var mu sync.Mutex
			var asked []string
			url := perCallerGateway(t, rt, gateway.CallerServer{URL: rt.url, MaxConnections: max, IdleTimeout: time.Hour,
				Options: &client.Options{Version: mcp.Version20251125},
				Credential: func(_ context.Context, c gateway.Caller) (string, error) {
					mu.Lock()
					asked = append(asked, c.Principal.ID)
					mu.Unlock()
					return rt.dev.Token(c.Principal.ID, c.Principal.Scopes...), nil
				}})
			ada := caller(t, url, rt.gateway.Token("ada", "notes:read", "notes:delete"), mcp.Version20251125)
			bob := caller(t, url, rt.gateway.Token("bob", "notes:read"), mcp.Version20251125)
			if got := text(t, ada, "notes.delete", nil); got != "delete by ada" {
				t.Errorf("ada's delete: %q", got)
			}
			if got := text(t, bob, "notes.read", nil); got != "read by bob" {
				t.Errorf("bob's read: %q", got)
			}
			rt.mu.Lock()
			defer rt.mu.Unlock()
			// With room for one, each caller's turn replaces the other's
			// connection: ada's, bob's, ada's, bob's again (each client
			// connects, then calls).
			if rt.initializes != want {
				t.Errorf("%d connections made, want %d", rt.initializes, want)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(asked, "ada") || !slices.Contains(asked, "bob") {
				t.Errorf("credentials asked for %v", asked)
			}
		})
	}
}

// A caller the server cannot be reached for sees none of its tools.
func TestPerCallerWithoutATokenSeesNothing(t *testing.T) {
	rt := newRights(t)
	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	defer gw.Shutdown(context.Background())
	g, err := gateway.New(t.Context(), nil, gw, gateway.PerCaller("notes", gateway.CallerServer{URL: rt.url, Exchange: &oauth.Client{ID: "gw", Secret: "gw-secret"}, Issuers: []string{rt.dev.Issuer}}))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	gw.Connect(g.Connect)
	c := connect(t, gw, nil)
	if got := toolNames(t, c); len(got) != 0 {
		t.Errorf("an anonymous caller sees %v", got)
	}
	if err := gateway.Mount(t.Context(), nil, gw, gateway.PerCaller("x", gateway.CallerServer{})); err == nil {
		t.Error("Mount took a server per caller")
	}
}

// A connection unused for IdleTimeout is closed (its session ends at the
// server), and the caller's next request opens another.
func TestPerCallerIdleConnectionsClose(t *testing.T) {
	rt := newRights(t)
	url := perCallerGateway(t, rt, gateway.CallerServer{URL: rt.url, IdleTimeout: 10 * time.Millisecond,
		Options: &client.Options{Version: mcp.Version20251125},
		Credential: func(_ context.Context, c gateway.Caller) (string, error) {
			return rt.dev.Token(c.Principal.ID, c.Principal.Scopes...), nil
		}})
	ada := caller(t, url, rt.gateway.Token("ada", "notes:read"), mcp.Version20251125)
	if got := text(t, ada, "notes.read", nil); got != "read by ada" {
		t.Errorf("ada's read: %q", got)
	}
	select {
	case who := <-rt.ended:
		if who != "ada" {
			t.Errorf("the session of %q ended", who)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the idle connection was not closed")
	}
	if got := text(t, ada, "notes.read", nil); got != "read by ada" {
		t.Errorf("ada's read after the idle close: %q", got)
	}
}
