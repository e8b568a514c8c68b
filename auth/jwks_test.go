package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/mcptest"
)

func TestJWKSValidTokens(t *testing.T) {
	jwks := newJWKSServer(t, map[string]any{"rsa": &rsaKey().PublicKey, "ec": &ecKey().PublicKey})
	srv := serve(t, newVerifier(t, jwksConfig(jwks, &errorLog{})))
	for _, tok := range []string{
		sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims()),
		sign(t, jwt.SigningMethodES256, ecKey(), "ec", claims()),
		sign(t, jwt.SigningMethodES256, ecKey(), "", claims()), // no kid: every suitable key is tried
	} {
		if resp, body := call(t, srv.URL, "Bearer "+tok); resp.StatusCode != http.StatusOK {
			t.Errorf("status %d, body %s", resp.StatusCode, body)
		}
	}
	if n := jwks.hits.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times, want once", n)
	}
}

// An ES256 token naming an RSA key's kid is refused even though both
// algorithms are allowed: the key must suit the token's algorithm.
func TestJWKSKeyMustSuitAlgorithm(t *testing.T) {
	jwks := newJWKSServer(t, map[string]any{"rsa": &rsaKey().PublicKey})
	v := newVerifier(t, jwksConfig(jwks, &errorLog{}))
	_, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodES256, ecKey(), "rsa", claims()))
	var aerr *auth.Error
	if !errors.As(err, &aerr) || aerr.Description != "token signing key not recognized" {
		t.Errorf("err %v, want a refusal for the key", err)
	}
}

// Without a kid every cached key suited to the algorithm is tried; when
// none suits, the token is refused without trying any.
func TestJWKSNoSuitableKey(t *testing.T) {
	jwks := newJWKSServer(t, map[string]any{"rsa": &rsaKey().PublicKey})
	v := newVerifier(t, jwksConfig(jwks, &errorLog{}))
	_, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodES256, ecKey(), "", claims()))
	var aerr *auth.Error
	if !errors.As(err, &aerr) || aerr.Description != "token signing key not recognized" {
		t.Errorf("err %v", err)
	}
}

func TestJWKSUnknownKidRefreshesOnce(t *testing.T) {
	jwks := newJWKSServer(t, map[string]any{"rsa": &rsaKey().PublicKey})
	cfg := jwksConfig(jwks, &errorLog{})
	// The limiter allows the next refresh only after the test: a refusal
	// that waited for it would hang until the test's deadline (call).
	cfg.JWKSRefreshLimit = 24 * time.Hour
	srv := serve(t, newVerifier(t, cfg))
	forged := sign(t, jwt.SigningMethodRS256, otherKey(), "ghost", claims())

	for i := range 3 {
		resp, body := call(t, srv.URL, "Bearer "+forged)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+testMetadata+`", error="invalid_token"` ||
			!strings.Contains(body, "token signing key not recognized") {
			t.Errorf("attempt %d: status %d, challenge %q, body %s", i, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	// One fetch at start, one for the first unknown kid, none after.
	if n := jwks.hits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2", n)
	}
	if resp, _ := call(t, srv.URL, "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims())); resp.StatusCode != http.StatusOK {
		t.Errorf("known kid after unknown ones: status %d", resp.StatusCode)
	}
}

func TestJWKSKeyRotation(t *testing.T) {
	jwks := newJWKSServer(t, map[string]any{"old": &rsaKey().PublicKey})
	srv := serve(t, newVerifier(t, jwksConfig(jwks, &errorLog{})))
	if resp, _ := call(t, srv.URL, "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey(), "old", claims())); resp.StatusCode != http.StatusOK {
		t.Fatalf("old key: status %d", resp.StatusCode)
	}

	jwks.set(t, map[string]any{"old": &rsaKey().PublicKey, "new": &rsaKey2().PublicKey})
	if resp, body := call(t, srv.URL, "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey2(), "new", claims())); resp.StatusCode != http.StatusOK {
		t.Errorf("new kid after rotation: status %d, body %s", resp.StatusCode, body)
	}
	if n := jwks.hits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2 (start, rotation)", n)
	}
}

func TestJWKSDownWithCachedKeys(t *testing.T) {
	jwks := newJWKSServer(t, map[string]any{"rsa": &rsaKey().PublicKey})
	errs := &errorLog{}
	cfg := jwksConfig(jwks, errs)
	cfg.JWKSRefreshInterval = 10 * time.Millisecond
	srv := serve(t, newVerifier(t, cfg))
	jwks.down.Store(true)

	mcptest.WaitUntil(t, "the failing background refresh was reported 3 times", func() bool { return errs.len() >= 3 })
	if resp, body := call(t, srv.URL, "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims())); resp.StatusCode != http.StatusOK {
		t.Errorf("cached key while JWKS is down: status %d, body %s", resp.StatusCode, body)
	}
	resp, body := call(t, srv.URL, "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey2(), "other", claims()))
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "token signing key not recognized") {
		t.Errorf("unknown kid while JWKS is down: status %d, body %s", resp.StatusCode, body)
	}
}

func TestJWKSDownWithoutKeys(t *testing.T) {
	jwks := newJWKSServer(t, nil)
	jwks.down.Store(true)
	errs := &errorLog{}
	srv := serve(t, newVerifier(t, jwksConfig(jwks, errs))) // starts despite the outage
	if errs.len() != 1 {
		t.Errorf("%d errors reported for the failed first fetch, want 1", errs.len())
	}
	for _, kid := range []string{"rsa", ""} {
		resp, body := call(t, srv.URL, "Bearer "+sign(t, jwt.SigningMethodRS256, rsaKey(), kid, claims()))
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+testMetadata+`", error="invalid_token"` ||
			body != `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: signing keys unavailable, try again later"}}` {
			t.Errorf("kid %q: status %d, challenge %q, body %s", kid, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
}

// Close stops the background refresh: no goroutine outlives it.
func TestCloseStopsRefresh(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	jwks := newJWKSServer(t, map[string]any{"rsa": &rsaKey().PublicKey})
	defer jwks.Close()
	cfg := jwksConfig(jwks, &errorLog{})
	cfg.JWKSRefreshInterval = time.Millisecond
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mcptest.WaitUntil(t, "the background refresh ran", func() bool { return jwks.hits.Load() >= 3 })
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	_ = v.Close() // idempotent
	jwks.Close()
}

// Config.Context ends the refresh of a JWT middleware, which has no Close.
func TestJWTContextStopsRefresh(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	jwks := newJWKSServer(t, map[string]any{"rsa": &rsaKey().PublicKey})
	ctx, cancel := context.WithCancel(context.Background())
	cfg := jwksConfig(jwks, &errorLog{})
	cfg.Context = ctx
	auth.JWT(cfg)
	cancel()
	jwks.Close()
}

// Without a JWKSErrorHandler a failed fetch is logged on Config.Logger.
func TestJWKSErrorLogged(t *testing.T) {
	jwks := newJWKSServer(t, nil)
	jwks.down.Store(true)
	var buf syncBuffer
	log := zerolog.New(&buf)
	cfg := jwksConfig(jwks, nil)
	cfg.JWKSErrorHandler, cfg.Logger = nil, &log
	newVerifier(t, cfg)
	var line struct{ Level, Message, Error string }
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf.Bytes(), err)
	}
	if line.Level != "error" || line.Message != "auth: JWKS refresh failed" || !strings.Contains(line.Error, jwks.URL) {
		t.Errorf("log line %+v, want an error naming %s", line, jwks.URL)
	}
}

// syncBuffer is a bytes.Buffer safe for the refresh goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	line, _, _ := bytes.Cut(b.buf.Bytes(), []byte("\n"))
	return bytes.Clone(line)
}
