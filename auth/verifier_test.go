package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/internal/bearer"
	"github.com/specter-mcp/specter/principal"
)

func TestValidTokens(t *testing.T) {
	tests := []struct {
		alg    string
		method jwt.SigningMethod
		sign   any // signing key
		verify any // key in Config.Keys
	}{
		{"HS256", jwt.SigningMethodHS256, hmacKey(), hmacKey()},
		{"RS256", jwt.SigningMethodRS256, rsaKey(), &rsaKey().PublicKey},
		{"PS256", jwt.SigningMethodPS256, rsaKey(), rsaKey()}, // a private key is accepted; its public half is kept
		{"ES256", jwt.SigningMethodES256, ecKey(), &ecKey().PublicKey},
		{"EdDSA", jwt.SigningMethodEdDSA, edKey(), edKey().Public()},
	}
	for _, tc := range tests {
		t.Run(tc.alg, func(t *testing.T) {
			cfg := rsaConfig()
			cfg.Algorithms = []string{tc.alg}
			cfg.Keys = map[string]any{"k1": tc.verify}
			srv := serve(t, newVerifier(t, cfg))

			resp, body := call(t, srv.URL, "Bearer "+sign(t, tc.method, tc.sign, "k1", claims()))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, body %s", resp.StatusCode, body)
			}
			if want := `{"id":"user-42","scopes":["mcp:tools","mcp:read"],"sub":"user-42"}` + "\n"; body != want {
				t.Errorf("body %s, want %s", body, want)
			}
		})
	}
}

func TestSchemeIsCaseInsensitive(t *testing.T) {
	srv := serve(t, newVerifier(t, rsaConfig()))
	tok := sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims())
	for _, h := range []string{"bearer " + tok, "BEARER " + tok, "Bearer   " + tok} {
		if resp, body := call(t, srv.URL, h); resp.StatusCode != http.StatusOK {
			t.Errorf("%.12s…: status %d, body %s", h, resp.StatusCode, body)
		}
	}
}

func TestVerifyClaims(t *testing.T) {
	v := newVerifier(t, rsaConfig())
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	tok := sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims(func(c jwt.MapClaims) {
		c["exp"] = exp.Unix()
		c["aud"] = []string{"https://other.example.com", testAudience}
		c["plan"] = "ultra"
	}))
	c, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "user-42" || c.Issuer != testIssuer || !c.ExpiresAt.Equal(exp) {
		t.Errorf("claims %+v", c)
	}
	if want := []string{"https://other.example.com", testAudience}; !reflect.DeepEqual(c.Audience, want) {
		t.Errorf("Audience %q, want %q", c.Audience, want)
	}
	if want := []string{"mcp:tools", "mcp:read"}; !reflect.DeepEqual(c.Scopes, want) {
		t.Errorf("Scopes %q, want %q", c.Scopes, want)
	}
	if c.Raw["plan"] != "ultra" {
		t.Errorf("Raw[plan] = %v", c.Raw["plan"])
	}
}

func TestContextCarriesClaimsAndPrincipal(t *testing.T) {
	v := newVerifier(t, rsaConfig())
	var (
		c  *auth.Claims
		p  *principal.Principal
		ok bool
	)
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ok1, ok2 bool
		c, ok1 = auth.ClaimsFrom(r.Context())
		p, ok2 = principal.FromContext(r.Context())
		ok = ok1 && ok2
	}))
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims()))
	h.ServeHTTP(httptest.NewRecorder(), req)
	if !ok {
		t.Fatal("claims or principal missing from the request context")
	}
	if p.ID != "user-42" || !p.HasScopes("mcp:tools", "mcp:read") || p.Claims["iss"] != testIssuer {
		t.Errorf("principal %+v", p)
	}
	if c.Subject != p.ID {
		t.Errorf("claims subject %q, principal %q", c.Subject, p.ID)
	}
	if _, ok := auth.ClaimsFrom(context.Background()); ok {
		t.Error("ClaimsFrom found claims in an empty context")
	}
}

func TestScopeClaimForms(t *testing.T) {
	tests := []struct {
		name  string
		claim string // Config.ScopeClaim
		edit  func(jwt.MapClaims)
		want  []string
	}{
		{"scope string", "", func(c jwt.MapClaims) {}, []string{"mcp:tools", "mcp:read"}},
		{"scp array", "", func(c jwt.MapClaims) { delete(c, "scope"); c["scp"] = []string{"a", "b"} }, []string{"a", "b"}},
		{"scp string", "", func(c jwt.MapClaims) { delete(c, "scope"); c["scp"] = "a b" }, []string{"a", "b"}},
		{"custom claim", "permissions", func(c jwt.MapClaims) { c["permissions"] = []string{"x"} }, []string{"x"}},
		{"no scopes", "", func(c jwt.MapClaims) { delete(c, "scope") }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rsaConfig()
			cfg.ScopeClaim = tc.claim
			c, err := newVerifier(t, cfg).Verify(context.Background(), sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims(tc.edit)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Scopes, tc.want) {
				t.Errorf("Scopes %q, want %q", c.Scopes, tc.want)
			}
		})
	}
	t.Run("malformed", func(t *testing.T) {
		_, err := newVerifier(t, rsaConfig()).Verify(context.Background(),
			sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims(func(c jwt.MapClaims) { c["scope"] = 7 })))
		var aerr *auth.Error
		if want := `token "scope" claim is neither a string nor an array of strings`; !errors.As(err, &aerr) || aerr.Description != want {
			t.Errorf("err %v, want %s", err, want)
		}
	})
}

func TestPrincipalClaim(t *testing.T) {
	cfg := rsaConfig()
	cfg.PrincipalClaim = "email"
	srv := serve(t, newVerifier(t, cfg))
	tok := sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims(func(c jwt.MapClaims) { c["email"] = "ada@example.com" }))
	if _, body := call(t, srv.URL, "Bearer "+tok); !strings.Contains(body, `"id":"ada@example.com"`) {
		t.Errorf("body %s, want the email as principal ID", body)
	}
	tok = sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims())
	if resp, _ := call(t, srv.URL, "Bearer "+tok); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("token without the principal claim: status %d, want 401", resp.StatusCode)
	}
}

func TestAudienceComparison(t *testing.T) {
	v := newVerifier(t, rsaConfig())
	for aud, ok := range map[string]bool{
		testAudience:                    true,
		"HTTPS://MCP.Example.com/mcp":   true, // scheme and host are case-insensitive
		"https://mcp.example.com/MCP":   false,
		"https://mcp.example.com/mcp/":  false,
		"https://mcp.example.com":       false,
		"https://mcp.example.com.evil/": false,
	} {
		_, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims(func(c jwt.MapClaims) { c["aud"] = aud })))
		if (err == nil) != ok {
			t.Errorf("aud %q: err %v, want accepted=%v", aud, err, ok)
		}
	}
}

func TestLeeway(t *testing.T) {
	recent := claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-10 * time.Second).Unix() })
	if _, err := newVerifier(t, rsaConfig()).Verify(context.Background(), sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", recent)); err != nil {
		t.Errorf("token expired 10s ago refused despite the default 30s leeway: %v", err)
	}
	cfg := rsaConfig()
	cfg.Leeway = -1
	_, err := newVerifier(t, cfg).Verify(context.Background(), sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", recent))
	if !errors.Is(err, jwt.ErrTokenExpired) {
		t.Errorf("without leeway: err %v, want jwt.ErrTokenExpired", err)
	}
}

func TestDefaultKey(t *testing.T) {
	cfg := rsaConfig()
	cfg.Keys = map[string]any{"": &rsaKey().PublicKey}
	v := newVerifier(t, cfg)
	for _, kid := range []string{"", "any-kid"} {
		if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, rsaKey(), kid, claims())); err != nil {
			t.Errorf("kid %q: %v", kid, err)
		}
	}
}

func TestKeyFunc(t *testing.T) {
	cfg := rsaConfig()
	cfg.Keys = nil
	cfg.Algorithms = []string{"ES256"}
	cfg.KeyFunc = func(*jwt.Token) (any, error) { return &ecKey().PublicKey, nil }
	v := newVerifier(t, cfg)
	if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodES256, ecKey(), "", claims())); err != nil {
		t.Fatal(err)
	}
	// A KeyFunc returning a key of the wrong kind is caught too.
	cfg.Algorithms = []string{"RS256"}
	cfg.KeyFunc = func(*jwt.Token) (any, error) { return &ecKey().PublicKey, nil }
	_, err := newVerifier(t, cfg).Verify(context.Background(), sign(t, jwt.SigningMethodRS256, rsaKey(), "", claims()))
	if err == nil {
		t.Fatal("RS256 token verified with an ECDSA key from KeyFunc")
	}
}

func TestSkipper(t *testing.T) {
	cfg := rsaConfig()
	cfg.Skipper = func(r *http.Request) bool { return r.URL.Path == "/health" }
	h := newVerifier(t, cfg).Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := principal.FromContext(r.Context()); ok {
			t.Error("skipped request has a principal")
		}
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("skipped request: status %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/mcp", nil))
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("not skipped: status %d, want 401", rec.Code)
	}
}

func TestErrorHandler(t *testing.T) {
	cfg := rsaConfig()
	var got *auth.Error
	cfg.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err *auth.Error) {
		got = err
		err.Respond(w) // log, then keep the default answer
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa",
		claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() })))
	newVerifier(t, cfg).Middleware(whoami).ServeHTTP(rec, req)
	if got == nil || !errors.Is(got, jwt.ErrTokenExpired) || got.Status != http.StatusUnauthorized || got.Code != auth.CodeInvalidToken {
		t.Fatalf("ErrorHandler got %+v", got)
	}
	if rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") != got.Challenge {
		t.Errorf("status %d, challenge %q", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
}

func TestEcho(t *testing.T) {
	e := echo.New()
	g := e.Group("/mcp", auth.JWT(rsaConfig()))
	g.POST("", func(c echo.Context) error {
		claims, ok := auth.ClaimsFromEcho(c)
		p, ok2 := principal.FromContext(c.Request().Context())
		if !ok || !ok2 {
			return c.String(http.StatusInternalServerError, "no claims")
		}
		return c.JSON(http.StatusOK, map[string]any{"sub": claims.Subject, "id": p.ID})
	})
	srv := httptest.NewServer(e)
	defer srv.Close()

	resp, body := call(t, srv.URL+"/mcp", "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims()))
	if resp.StatusCode != http.StatusOK || body != `{"id":"user-42","sub":"user-42"}`+"\n" {
		t.Errorf("status %d, body %s", resp.StatusCode, body)
	}
	resp, body = call(t, srv.URL+"/mcp")
	if resp.StatusCode != http.StatusUnauthorized ||
		resp.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+testMetadata+`", scope="mcp:tools"` ||
		body != `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: a bearer token is required"}}` {
		t.Errorf("no token: status %d, challenge %q, body %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
}

func TestVerifyErrors(t *testing.T) {
	v := newVerifier(t, rsaConfig())
	long := strings.Repeat("A", auth.DefaultMaxTokenBytes+1)
	expired := sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }))
	for _, tc := range []struct {
		token, description string
		is                 error
	}{
		{long, "token too large", nil},
		{expired, "token expired", jwt.ErrTokenExpired},
		{"a.b.c", "malformed token", jwt.ErrTokenMalformed},
	} {
		c, err := v.Verify(context.Background(), tc.token)
		var aerr *auth.Error
		if c != nil || !errors.As(err, &aerr) {
			t.Fatalf("Verify = %v, %v; want an *auth.Error", c, err)
		}
		if aerr.Status != http.StatusUnauthorized || aerr.Code != auth.CodeInvalidToken || aerr.Description != tc.description ||
			aerr.Challenge != challengeInvalid {
			t.Errorf("error %+v", aerr)
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
		}
		if !strings.HasPrefix(err.Error(), "auth: "+tc.description) || strings.Contains(err.Error(), tc.token) {
			t.Errorf("Error() = %q", err)
		}
	}
}

func TestEchoSkipper(t *testing.T) {
	cfg := rsaConfig()
	cfg.Skipper = func(r *http.Request) bool { return r.URL.Path == "/mcp/health" }
	e := echo.New()
	g := e.Group("/mcp", auth.JWT(cfg))
	g.GET("/health", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/mcp/health", nil))
	if rec.Code != http.StatusNoContent {
		t.Errorf("skipped route: status %d", rec.Code)
	}
}

// A DevIssuer's tokens pass its own Config, and no other.
func TestDevIssuer(t *testing.T) {
	dev := auth.NewDevIssuer(testAudience)
	if dev.Issuer != "https://mcp.example.com" || len(dev.Secret) != 32 {
		t.Errorf("NewDevIssuer: issuer %q, %d-byte secret", dev.Issuer, len(dev.Secret))
	}
	srv := serve(t, newVerifier(t, dev.Config()))
	other := auth.NewDevIssuer(testAudience)
	expired := dev.Sign(map[string]any{"sub": "ada", "exp": time.Now().Add(-time.Hour).Unix()})
	tests := []struct {
		name, token string
		status      int
		body        string
	}{
		{"token", dev.Token("ada", "a", "b"), 200, `{"id":"ada","scopes":["a","b"],"sub":"ada"}`},
		{"no scopes", dev.Token("bob"), 200, `{"id":"bob","scopes":null,"sub":"bob"}`},
		{"extra claims", dev.Sign(map[string]any{"sub": "cy", "plan": "ultra"}), 200, `{"id":"cy","scopes":null,"sub":"cy"}`},
		{"expired", expired, 401, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: token expired"}}`},
		{"another secret", other.Token("ada"), 401, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: invalid token signature"}}`},
		{"another audience", dev.Sign(map[string]any{"sub": "ada", "aud": "https://other.example.com/mcp"}), 401,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: token \"aud\" claim does not name this server"}}`},
	}
	for _, tc := range tests {
		resp, body := call(t, srv.URL, "Bearer "+tc.token)
		if resp.StatusCode != tc.status || strings.TrimSpace(body) != tc.body {
			t.Errorf("%s: status %d, body %s; want %d %s", tc.name, resp.StatusCode, body, tc.status, tc.body)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "too short") {
			t.Errorf("a short secret: recovered %v, want a panic", r)
		}
	}()
	(&auth.DevIssuer{Secret: []byte("short"), Issuer: testIssuer, Resource: testAudience}).Token("ada")
}

// Every request the middleware passes, skipped or authenticated, names
// the metadata URL in its context, where the router's challenges read it.
func TestContextNamesMetadata(t *testing.T) {
	cfg := rsaConfig()
	cfg.Skipper = func(r *http.Request) bool { return r.URL.Path == "/health" }
	h := newVerifier(t, cfg).Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(bearer.ResourceMetadata(r.Context())))
	}))
	for _, path := range []string{"/health", "/mcp"} {
		req := httptest.NewRequest(http.MethodPost, path, nil)
		req.Header.Set("Authorization", "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims()))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Body.String() != testMetadata {
			t.Errorf("%s: status %d, metadata URL %q, want %q", path, rec.Code, rec.Body, testMetadata)
		}
	}
}
