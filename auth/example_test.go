package auth_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/golang-jwt/jwt/v5"
	echojwt "github.com/labstack/echo-jwt/v4"
	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/principal"
)

func ExampleJWT() {
	// One Config states the server's authorization facts: the token
	// audience, the metadata document and the challenges all follow from
	// Resource. In production, prefer JWKSURL with the authorization
	// server's key set.
	cfg := auth.Config{
		Resource:   "https://mcp.example.com/mcp",
		Issuer:     "https://auth.example.com",
		Keys:       map[string]any{"": []byte("an HS256 secret of at least 32 bytes!")},
		Algorithms: []string{"HS256"},
		Scopes:     []string{"mcp:tools"},
	}

	e := echo.New()
	// Clients discover the authorization server here (RFC 9728).
	auth.MountMetadata(e, cfg)
	mcp := e.Group("/mcp", auth.JWT(cfg))
	// A Specter router mounted here reads the same principal, and its own
	// challenges name the same metadata URL.
	mcp.POST("", func(c echo.Context) error {
		p, _ := principal.FromContext(c.Request().Context())
		return c.String(http.StatusOK, fmt.Sprintf("hello %s %v", p.ID, p.Scopes))
	})

	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))

	rec = httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil))
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"
	// 200 {"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["mcp:tools"],"bearer_methods_supported":["header"]}
}

// A DevIssuer stands in for an authorization server while developing and
// testing: its Config accepts exactly the tokens it mints.
func ExampleDevIssuer() {
	dev := auth.NewDevIssuer("http://localhost:8080/mcp")
	e := echo.New()
	e.Group("/mcp", auth.JWT(dev.Config())).POST("", func(c echo.Context) error {
		p, _ := principal.FromContext(c.Request().Context())
		return c.String(http.StatusOK, fmt.Sprintf("hello %s %v", p.ID, p.Scopes))
	})

	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+dev.Token("ada", "files:read"))
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body.String(), dev.Issuer)
	// Output:
	// 200 hello ada [files:read] http://localhost:8080
}

// An app that signs its own tokens at login (HS256 with its own secret, no
// OAuth issuer, no audience) verifies them with an InHouse Config: no
// metadata document, and "iss" and "aud" are checked only when set.
func ExampleJWT_inHouse() {
	secret := []byte("the app's own HS256 secret, 32+ bytes")
	e := echo.New()
	e.Group("/mcp", auth.JWT(auth.Config{
		InHouse:    true,
		Keys:       map[string]any{"": secret},
		Algorithms: []string{"HS256"},
	})).POST("", func(c echo.Context) error {
		p, _ := principal.FromContext(c.Request().Context())
		return c.String(http.StatusOK, "hello "+p.ID)
	})

	login := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "ada", "exp": time.Now().Add(time.Hour).Unix()})
	token, _ := login.SignedString(secret)
	for _, authorization := range []string{"Bearer " + token, ""} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Authorization", authorization)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body.String())
	}
	// Output:
	// 200  hello ada
	// 401 Bearer {"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: a bearer token is required"}}
}

// An app that already authenticates with echo-jwt (or sessions, or API
// keys) keeps its middleware: Bridge runs it, hands its caller to the MCP
// router as the principal, and turns its refusals into the 401 MCP
// clients understand.
func ExampleBridge() {
	secret := []byte("the app's own HS256 secret, 32+ bytes")
	identify := func(c echo.Context) (*principal.Principal, error) {
		token := c.Get("user").(*jwt.Token) // where echo-jwt leaves it
		sub, err := token.Claims.GetSubject()
		if err != nil || sub == "" {
			return nil, errors.New(`token lacks the "sub" claim`)
		}
		return &principal.Principal{ID: sub}, nil
	}
	e := echo.New()
	e.Group("/mcp", auth.Bridge(echojwt.JWT(secret), identify)).POST("", func(c echo.Context) error {
		p, _ := principal.FromContext(c.Request().Context())
		return c.String(http.StatusOK, "hello "+p.ID)
	})

	login := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "ada", "exp": time.Now().Add(time.Hour).Unix()})
	token, _ := login.SignedString(secret)
	for _, authorization := range []string{"Bearer " + token, "Bearer not-a-jwt"} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Authorization", authorization)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body.String())
	}
	// Output:
	// 200  hello ada
	// 401 Bearer error="invalid_token" {"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: invalid or expired jwt"}}
}
