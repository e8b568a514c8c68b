package auth_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/principal"
)

// keyOwners are the API keys of the app in these tests, by owner.
var keyOwners = map[string]string{"k-ada": "ada", "k-nobody": ""}

// apiKeys is an app's existing API-key middleware: echo's KeyAuth, which
// answers 400 without a key and 401 with a wrong one.
var apiKeys = middleware.KeyAuth(func(key string, c echo.Context) (bool, error) {
	owner, ok := keyOwners[key]
	c.Set("owner", owner)
	return ok, nil
})

// keyOwner identifies the caller of a key KeyAuth accepted.
func keyOwner(c echo.Context) (*principal.Principal, error) {
	owner, _ := c.Get("owner").(string)
	if owner == "" {
		return nil, errors.New("the API key belongs to nobody")
	}
	return &principal.Principal{ID: owner, Scopes: []string{"notes:read"}}, nil
}

// bridged serves mw in front of a handler that answers with the caller's
// id, or with err (a handler's own refusal) when set.
func bridged(t *testing.T, mw echo.MiddlewareFunc, err error) *httptest.Server {
	t.Helper()
	e := echo.New()
	e.POST("/mcp", func(c echo.Context) error {
		if err != nil {
			return err
		}
		p, ok := principal.FromContext(c.Request().Context())
		if !ok {
			return c.String(http.StatusOK, "anonymous")
		}
		return c.String(http.StatusOK, p.ID+" "+strings.Join(p.Scopes, ","))
	}, mw)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

func TestBridge(t *testing.T) {
	srv := bridged(t, auth.BridgeWithConfig(auth.BridgeConfig{Authenticate: apiKeys, Identify: keyOwner, Scopes: []string{"notes:read"}}), nil)
	tests := []struct {
		name, authz        string
		status             int
		challenge, message string
		wantRaw            string // the handler's answer
	}{
		{name: "a valid key", authz: "Bearer k-ada", status: 200, wantRaw: "ada notes:read"},
		// KeyAuth's own refusals, MCP-shaped with their status kept.
		{name: "no key", status: 400, message: "Bad Request: missing key in request header"},
		{name: "a wrong key", authz: "Bearer k-eve", status: 401, challenge: `Bearer scope="notes:read", error="invalid_token"`, message: "Unauthorized: Unauthorized"},
		// Identify's refusal: 401 with its text.
		{name: "a key without an owner", authz: "Bearer k-nobody", status: 401, challenge: `Bearer scope="notes:read", error="invalid_token"`,
			message: "Unauthorized: the API key belongs to nobody"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var authz []string
			if tc.authz != "" {
				authz = append(authz, tc.authz)
			}
			resp, body := call(t, srv.URL+"/mcp", authz...)
			if resp.StatusCode != tc.status || resp.Header.Get("WWW-Authenticate") != tc.challenge {
				t.Errorf("status %d, challenge %q; want %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tc.status, tc.challenge)
			}
			want := tc.wantRaw
			if tc.message != "" {
				want = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"` + tc.message + `"}}`
				if resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("Content-Type %q, Cache-Control %q", resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
				}
			}
			if strings.TrimSpace(body) != want {
				t.Errorf("body %s, want %s", body, want)
			}
		})
	}
}

// What the handler behind the bridge answers is its own: its errors are
// not taken for the bridge's refusals.
func TestBridgeLeavesTheHandlersErrors(t *testing.T) {
	for _, err := range []error{echo.NewHTTPError(http.StatusNotFound, "no such note"), echo.ErrUnauthorized} {
		srv := bridged(t, auth.Bridge(apiKeys, keyOwner), err)
		resp, body := call(t, srv.URL+"/mcp", "Bearer k-ada")
		he := err.(*echo.HTTPError)
		if resp.StatusCode != he.Code || strings.Contains(body, "jsonrpc") || resp.Header.Get("WWW-Authenticate") != "" {
			t.Errorf("the handler's %v: status %d, challenge %q, body %s", err, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	// A 5xx of the app's middleware is a server error, not a refusal.
	broken := func(echo.HandlerFunc) echo.HandlerFunc {
		return func(echo.Context) error {
			return echo.NewHTTPError(http.StatusServiceUnavailable, "session store down")
		}
	}
	resp, body := call(t, bridged(t, auth.Bridge(broken, keyOwner), nil).URL+"/mcp")
	if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(body, "jsonrpc") {
		t.Errorf("a 503 of the middleware: status %d, body %s", resp.StatusCode, body)
	}
}

func TestBridgeSkipper(t *testing.T) {
	srv := bridged(t, auth.BridgeWithConfig(auth.BridgeConfig{Authenticate: apiKeys, Identify: keyOwner,
		Skipper: func(c echo.Context) bool { return c.Request().Header.Get("X-Health") != "" }}), nil)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", nil)
	req.Header.Set("X-Health", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || string(body) != "anonymous" {
		t.Errorf("a skipped request: %d %s", resp.StatusCode, body)
	}
}

func TestBridgeNeedsBothHalves(t *testing.T) {
	for _, cfg := range []auth.BridgeConfig{{Authenticate: apiKeys}, {Identify: keyOwner}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "needs both Authenticate") {
					t.Errorf("BridgeWithConfig(%+v) panicked with %v", cfg, r)
				}
			}()
			auth.BridgeWithConfig(cfg)
		}()
	}
}
