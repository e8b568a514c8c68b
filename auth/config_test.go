package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/specter-mcp/specter/auth"
)

func TestConfigValidation(t *testing.T) {
	smallRSA := must(rsa.GenerateKey(rand.Reader, 1024))
	p384 := must(ecdsa.GenerateKey(elliptic.P384(), rand.Reader))
	tests := []struct {
		name string
		edit func(*auth.Config)
		want string // in the error
	}{
		{"no algorithms", func(c *auth.Config) { c.Algorithms = nil }, "Algorithms is required"},
		{"none", func(c *auth.Config) { c.Algorithms = []string{"RS256", "none"} }, `must not contain "none"`},
		{"None", func(c *auth.Config) { c.Algorithms = []string{"None"} }, `must not contain "none"`},
		{"unknown algorithm", func(c *auth.Config) { c.Algorithms = []string{"RS257"} }, `unknown algorithm "RS257"`},
		{"HS mixed with RS", func(c *auth.Config) { c.Algorithms = []string{"HS256", "RS256"} }, "mix HMAC with public-key algorithms"},
		{"no issuer", func(c *auth.Config) { c.Issuer = "" }, "Issuer is required"},
		{"no resource", func(c *auth.Config) { c.Resource = "" }, "Resource is required"},
		{"relative resource", func(c *auth.Config) { c.Resource = "/mcp" }, `Resource: "/mcp" is not an absolute https URL`},
		{"resource over plain http", func(c *auth.Config) { c.Resource = "http://mcp.example.com/mcp" }, "must use https"},
		{"no key source", func(c *auth.Config) { c.Keys = nil }, "exactly one of Keys, JWKSURL and KeyFunc is required, got 0"},
		{"two key sources", func(c *auth.Config) { c.JWKSURL = "https://auth.example.com/jwks" }, "exactly one of Keys, JWKSURL and KeyFunc is required, got 2"},
		{"three key sources", func(c *auth.Config) {
			c.JWKSURL = "https://auth.example.com/jwks"
			c.KeyFunc = func(*jwt.Token) (any, error) { return nil, nil }
		}, "got 3"},
		{"empty Keys", func(c *auth.Config) { c.Keys = map[string]any{} }, "Keys is empty"},
		{"JWKS over plain http", func(c *auth.Config) { c.Keys, c.JWKSURL = nil, "http://auth.example.com/jwks" }, "must use https"},
		{"HMAC with JWKS", func(c *auth.Config) {
			c.Keys, c.JWKSURL, c.Algorithms = nil, "https://auth.example.com/jwks", []string{"HS256"}
		}, "HMAC algorithms need Keys or KeyFunc"},
		{"string secret", func(c *auth.Config) { c.Algorithms, c.Keys = []string{"HS256"}, map[string]any{"k": "secret"} }, `Keys["k"]: a string (HMAC secrets are []byte)`},
		{"short secret", func(c *auth.Config) { c.Algorithms, c.Keys = []string{"HS256"}, map[string]any{"k": []byte("short")} }, "5-byte HMAC secret cannot verify any of [HS256]"},
		{"RSA key for ES256", func(c *auth.Config) { c.Algorithms = []string{"ES256"} }, "2048-bit RSA key cannot verify any of [ES256]"},
		{"small RSA key", func(c *auth.Config) { c.Keys = map[string]any{"k": &smallRSA.PublicKey} }, "1024-bit RSA key cannot verify"},
		{"P-384 key for ES256", func(c *auth.Config) { c.Algorithms, c.Keys = []string{"ES256"}, map[string]any{"k": &p384.PublicKey} }, "ECDSA P-384 key cannot verify any of [ES256]"},
		{"issuer is no URL", func(c *auth.Config) { c.Issuer = "issuer" }, `Issuer: "issuer" is not an absolute https URL`},
		{"bad authorization server", func(c *auth.Config) { c.AuthorizationServers = []string{"http://auth.example.com"} }, "authorization_servers"},
		{"bad documentation URL", func(c *auth.Config) { c.ResourceDocumentation = "docs" }, "resource_documentation"},
		{"bad scope", func(c *auth.Config) { c.Scopes = []string{`a"b`} }, "is not a valid scope token"},
		{"negative MaxTokenBytes", func(c *auth.Config) { c.MaxTokenBytes = -1 }, "MaxTokenBytes is negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rsaConfig()
			tc.edit(&cfg)
			v, err := auth.NewVerifier(cfg)
			if err == nil {
				_ = v.Close()
				t.Fatalf("NewVerifier accepted the config, want an error with %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "auth: invalid Config: ") {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			defer func() {
				if r := recover(); fmt.Sprint(r) != err.Error() {
					t.Errorf("JWT panicked with %v, want %v", r, err)
				}
			}()
			auth.JWT(cfg)
		})
	}
}

// Every mistake is reported at once.
func TestConfigValidationReportsAll(t *testing.T) {
	_, err := auth.NewVerifier(auth.Config{})
	for _, want := range []string{"exactly one of", "Algorithms is required", "Issuer is required", "Resource is required"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to mention %q", err, want)
		}
	}
}
