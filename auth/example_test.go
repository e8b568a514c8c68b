package auth_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/principal"
)

func ExampleJWT() {
	const resource = "https://mcp.example.com/mcp"
	metadataURL, err := auth.MetadataURL(resource)
	if err != nil {
		panic(err)
	}
	secret := []byte("an HS256 secret of at least 32 bytes!")

	e := echo.New()
	// Clients discover the authorization server here (RFC 9728).
	auth.MountMetadata(e, "/mcp", auth.Metadata{
		Resource:             resource,
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"mcp:tools"},
	})
	// In production, prefer JWKSURL with the authorization server's key set.
	mcp := e.Group("/mcp", auth.JWT(auth.Config{
		Keys:                map[string]any{"": secret},
		Algorithms:          []string{"HS256"},
		Issuer:              "https://auth.example.com",
		Audience:            resource,
		ResourceMetadataURL: metadataURL,
		Scopes:              []string{"mcp:tools"},
	}))
	// A Specter router mounted here reads the same principal.
	mcp.POST("", func(c echo.Context) error {
		p, _ := principal.FromContext(c.Request().Context())
		return c.String(http.StatusOK, fmt.Sprintf("hello %s %v", p.ID, p.Scopes))
	})

	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))

	token, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss":   "https://auth.example.com",
		"aud":   resource,
		"sub":   "ada",
		"scope": "mcp:tools",
		"exp":   time.Now().Add(time.Hour).Unix(),
	}).SignedString(secret)
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec = httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"
	// 200 hello ada [mcp:tools]
}
