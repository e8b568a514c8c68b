package integration

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/middleware"
)

// The authorization server of the auth tests, and the scopes the MCP
// server names in its challenges and metadata.
const authIssuer = "https://auth.example.com"

var authScopes = []string{"studies:read", "studies:write"}

// RSA keys are generated once per test binary: generation is slow.
var (
	authKey   = sync.OnceValue(func() *rsa.PrivateKey { return authRSA() })
	authOther = sync.OnceValue(func() *rsa.PrivateKey { return authRSA() })
)

func authRSA() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

// authKid names authKey in token headers and key sets.
const authKid = "k1"

// authSetup configures an authServer. The zero value serves an empty
// router behind auth.JWT with static keys and a generous rate limit.
type authSetup struct {
	router  []specter.RouterOption
	declare func(r *specter.Router)
	connect func(c *specter.Context) error
	// jwt adjusts the auth.Config (its Resource is already the server's).
	jwt func(cfg *auth.Config)
	// rate replaces the rate limit of 1000 requests per second.
	rate *middleware.RateLimitConfig
}

// authServer is an Echo application as the README sets one up: one
// auth.Config drives the RFC 9728 metadata at the well-known URLs and
// auth.JWT on the MCP group, whose challenges and the router's name the
// same metadata URL; a rate limit and a router in the group. It runs on a real loopback server whose
// MCP URL is the tokens' audience. Every answer is watched: the test
// fails if a handler panicked, answered 5xx or reported an internal
// error.
type authServer struct {
	r        *specter.Router
	srv      *httptest.Server
	resource string // the MCP endpoint's URL: the resource identifier and audience
	metadata string // the URL of the protected resource metadata
	checked  atomic.Int64

	panics, failures, internal atomic.Int64
}

func newAuthServer(t *testing.T, s authSetup) *authServer {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	as := &authServer{srv: srv, resource: "http://" + srv.Listener.Addr().String() + "/mcp"}
	var err error
	if as.metadata, err = auth.MetadataURL(as.resource); err != nil {
		t.Fatal(err)
	}
	cfg := auth.Config{
		Resource:     as.resource,
		Issuer:       authIssuer,
		Keys:         map[string]any{authKid: &authKey().PublicKey},
		Algorithms:   []string{"RS256"},
		Scopes:       authScopes,
		ResourceName: "Specter auth tests",
	}
	if s.jwt != nil {
		s.jwt(&cfg)
	}
	opts := append([]specter.RouterOption{
		quiet,
		specter.OnError(func(context.Context, error, *specter.Request) { as.internal.Add(1) }),
	}, s.router...)
	as.r = specter.NewRouter("auth-test", "1.0.0", opts...)
	if s.declare != nil {
		s.declare(as.r)
	}
	if s.connect != nil {
		as.r.Connect(s.connect)
	}
	rate := middleware.RateLimitConfig{Rate: 1000, Burst: 1000}
	if s.rate != nil {
		rate = *s.rate
	}

	if authOnEchoV5 {
		srv.Config.Handler = as.echoV5(cfg, rate)
	} else {
		e := echo.New()
		e.HideBanner, e.HidePort = true, true
		e.Use(as.watch)
		auth.MountMetadata(e, cfg)
		as.r.Mount(e.Group("/mcp", auth.JWT(cfg), echo.WrapMiddleware(middleware.RateLimitWithConfig(rate))))
		srv.Config.Handler = e
	}
	srv.Start()

	// Cleanups run last first: the router ends its sessions and streams,
	// then the server closes, then the watch is read.
	t.Cleanup(func() {
		if n := as.panics.Load(); n > 0 {
			t.Errorf("%d requests panicked", n)
		}
		if n := as.failures.Load(); n > 0 {
			t.Errorf("%d requests were answered with a 5xx status", n)
		}
		if n := as.internal.Load(); n > 0 {
			t.Errorf("the router reported %d internal errors", n)
		}
	})
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = as.r.Shutdown(ctx)
	})
	return as
}

// watch counts panics and 5xx answers, whichever layer produced them.
func (as *authServer) watch(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if v := recover(); v != nil {
				as.panics.Add(1)
				err = echo.NewHTTPError(http.StatusInternalServerError)
			}
			var he *echo.HTTPError
			if c.Response().Status >= 500 || (errors.As(err, &he) && he.Code >= 500) {
				as.failures.Add(1)
			}
		}()
		return next(c)
	}
}

// claims are the claims of a valid token for sub with the given
// space-separated scopes, changed by edits.
func (as *authServer) claims(sub, scope string, edits ...func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"iss": authIssuer,
		"aud": as.resource,
		"sub": sub,
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
	}
	if scope != "" {
		c["scope"] = scope
	}
	for _, e := range edits {
		e(c)
	}
	return c
}

// token returns a valid RS256 token for sub with scope, changed by edits.
func (as *authServer) token(t testing.TB, sub, scope string, edits ...func(jwt.MapClaims)) string {
	t.Helper()
	return authSign(t, jwt.SigningMethodRS256, authKey(), authKid, as.claims(sub, scope, edits...))
}

// authSign signs c with key by method, naming kid in the header when set.
func authSign(t testing.TB, method jwt.SigningMethod, key any, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("signing a %s token: %v", method.Alg(), err)
	}
	return s
}

// challenge is the exact WWW-Authenticate value the server sends with
// the given RFC 6750 error code ("" for a request without a token).
func (as *authServer) challenge(code string) string {
	c := `Bearer resource_metadata="` + as.metadata + `", scope="` + strings.Join(authScopes, " ") + `"`
	if code != "" {
		c += `, error="` + code + `"`
	}
	return c
}

// stepUp is the exact challenge of a 403 for want of scope.
func (as *authServer) stepUp(scope string) string {
	return `Bearer resource_metadata="` + as.metadata + `", scope="` + scope + `", error="insufficient_scope"`
}

// client returns a schema-checked session-era client presenting token.
func (as *authServer) client(t testing.TB, token string) *mcptest.Client {
	c := mcptest.NewClient(as.resource)
	c.HTTP = as.srv.Client()
	if token != "" {
		c.Header.Set("Authorization", "Bearer "+token)
	}
	c.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	c.OnMessage = (&checker{t: t, c: c, count: &as.checked}).observe
	return c
}

// session returns a client presenting token with an initialized session
// at version.
func (as *authServer) session(t testing.TB, token, version string) *mcptest.Client {
	t.Helper()
	c := as.client(t, token)
	if _, err := c.Initialize(ctx(t), version); err != nil {
		t.Fatalf("initialize %s: %v", version, err)
	}
	return c
}

// stateless returns a schema-checked 2026-07-28 client presenting token.
func (as *authServer) stateless(t testing.TB, token string) *mcptest.StatelessClient {
	c := mcptest.NewStatelessClient(as.resource)
	c.HTTP = as.srv.Client()
	if token != "" {
		c.Header.Set("Authorization", "Bearer "+token)
	}
	c.ClientInfo = &mcp.Implementation{Name: "specter-auth-tests", Version: "1.0.0"}
	c.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	c.OnMessage = (&statelessChecker{t: t, count: &as.checked}).observe
	return c
}

// authInitialize is the body of a session-era initialize request.
const authInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"attacker","version":"1.0"}}}`

// post sends a raw POST to the server (path and query in target, the
// MCP endpoint when empty) with the transport's headers, then header,
// and returns the answer with its body read.
func (as *authServer) post(t testing.TB, target string, header http.Header, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	if target == "" {
		target = "/mcp"
	}
	req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, as.srv.URL+target, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := as.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: reading the answer: %v", target, err)
	}
	return resp, b
}

// bearer is an Authorization header with token.
func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// authErrorCode returns the JSON-RPC error code of an error body, failing
// the test when the body is no JSON-RPC error.
func authErrorCode(t testing.TB, body []byte) int {
	t.Helper()
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || m.Error.Message == "" {
		t.Errorf("the body is no JSON-RPC error (%v): %.300s", err, body)
		return 0
	}
	return m.Error.Code
}

// authJWKS is an authorization server's JWK Set endpoint that a test can
// take down, counting every fetch.
type authJWKS struct {
	*httptest.Server
	hits atomic.Int32
	down atomic.Bool
	body []byte
}

// newAuthJWKS publishes the public keys by kid until the test ends.
func newAuthJWKS(t *testing.T, keys map[string]*rsa.PublicKey) *authJWKS {
	t.Helper()
	var set jwkset.JWKSMarshal
	for kid, key := range keys {
		jwk, err := jwkset.NewJWKFromKey(key, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid}})
		if err != nil {
			t.Fatalf("JWK %s: %v", kid, err)
		}
		set.Keys = append(set.Keys, jwk.Marshal())
	}
	s := &authJWKS{}
	var err error
	if s.body, err = json.Marshal(set); err != nil {
		t.Fatal(err)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.hits.Add(1)
		if s.down.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(s.body)
	}))
	t.Cleanup(s.Close)
	return s
}

// use makes cfg take its keys from s, refreshing until the test ends and
// reporting refresh failures to errs.
func (s *authJWKS) use(t *testing.T, cfg *auth.Config, errs *atomic.Int32) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg.Keys = nil
	cfg.JWKSURL = s.URL
	cfg.JWKSClient = s.Client()
	cfg.JWKSErrorHandler = func(error) { errs.Add(1) }
	cfg.Context = ctx
}
