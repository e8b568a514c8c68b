package auth_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

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
