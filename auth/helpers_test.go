package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/principal"
)

const (
	testIssuer   = "https://auth.example.com"
	testAudience = "https://mcp.example.com/mcp"
	testMetadata = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
)

// Keys are generated once per test binary: RSA generation is slow.
var (
	rsaKey   = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
	rsaKey2  = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
	ecKey    = sync.OnceValue(func() *ecdsa.PrivateKey { return must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)) })
	edKey    = sync.OnceValue(func() ed25519.PrivateKey { _, k := must2(ed25519.GenerateKey(rand.Reader)); return k })
	hmacKey  = sync.OnceValue(func() []byte { b := make([]byte, 32); _, _ = rand.Read(b); return b })
	otherKey = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

// claims returns the claims of a valid token, changed by edits.
func claims(edits ...func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"iss":   testIssuer,
		"aud":   testAudience,
		"sub":   "user-42",
		"exp":   now.Add(5 * time.Minute).Unix(),
		"iat":   now.Unix(),
		"scope": "mcp:tools mcp:read",
	}
	for _, e := range edits {
		e(c)
	}
	return c
}

// sign signs c with key by method, naming kid in the header when set.
func sign(t testing.TB, method jwt.SigningMethod, key any, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("signing %s token: %v", method.Alg(), err)
	}
	return s
}

// rsaConfig is a Config for RS256 tokens signed by rsaKey under kid "rsa".
func rsaConfig() auth.Config {
	return auth.Config{
		Keys:       map[string]any{"rsa": &rsaKey().PublicKey},
		Algorithms: []string{"RS256"},
		Issuer:     testIssuer,
		Resource:   testAudience,
		Scopes:     []string{"mcp:tools"},
	}
}

func newVerifier(t testing.TB, cfg auth.Config) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		t.Fatalf("NewVerifier: %v", err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}

// whoami answers with what the middleware put in the request's context.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	p, ok := principal.FromContext(r.Context())
	c, ok2 := auth.ClaimsFrom(r.Context())
	if !ok || !ok2 {
		http.Error(w, "no principal or claims in context", http.StatusInternalServerError)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"id": p.ID, "scopes": p.Scopes, "sub": c.Subject})
})

// serve runs v's middleware in front of whoami on a real HTTP server.
func serve(t testing.TB, v *auth.Verifier) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(v.Middleware(whoami))
	// Requests end with the test (no deadline of their own, which a rate
	// limiter would read), so that a handler that hangs until the caller
	// gives up (call) does not also hold srv.Close.
	srv.Config.BaseContext = func(net.Listener) context.Context { return t.Context() }
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// call sends a POST to url with the given Authorization headers (none
// when empty) and returns the response and its body.
func call(t testing.TB, url string, authz ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(mcptest.Context(t), http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range authz {
		req.Header.Add("Authorization", a)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// jwksServer is an authorization server's JWKS endpoint whose key set a
// test can rotate and take down, counting every fetch.
type jwksServer struct {
	*httptest.Server
	hits atomic.Int32
	down atomic.Bool
	mu   sync.Mutex
	body []byte
}

func newJWKSServer(t testing.TB, keys map[string]any) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.set(t, keys)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if s.down.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.body)
	}))
	t.Cleanup(s.Close)
	return s
}

// set replaces the published key set: public keys by kid.
func (s *jwksServer) set(t testing.TB, keys map[string]any) {
	t.Helper()
	var set jwkset.JWKSMarshal
	for kid, key := range keys {
		jwk, err := jwkset.NewJWKFromKey(key, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid}})
		if err != nil {
			t.Fatalf("JWK %s: %v", kid, err)
		}
		set.Keys = append(set.Keys, jwk.Marshal())
	}
	body, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.body = body
	s.mu.Unlock()
}

// jwksConfig is a Config for RS256/ES256 tokens with keys from s.
func jwksConfig(s *jwksServer, errs *errorLog) auth.Config {
	return auth.Config{
		JWKSURL:          s.URL,
		JWKSClient:       s.Client(),
		JWKSErrorHandler: errs.add,
		Algorithms:       []string{"RS256", "ES256"},
		Issuer:           testIssuer,
		Resource:         testAudience,
	}
}

// errorLog collects the errors a Verifier reports about its JWKS.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) add(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

func (l *errorLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.errs)
}
