package auth

import (
	"crypto/rand"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DevIssuer mints HS256 access tokens for one MCP server, for development
// and tests only: its secret is shared with the verifier, so whoever can
// read it can mint any token. A real deployment verifies the tokens of its
// authorization server, usually by JWKSURL. Token and Sign panic on a
// Secret shorter than 32 bytes (NewDevIssuer makes a valid one) and on
// claims that do not encode as JSON.
type DevIssuer struct {
	// Secret signs and verifies the tokens (HS256): at least 32 bytes.
	Secret []byte
	// Issuer is the tokens' "iss" claim.
	Issuer string
	// Resource is the MCP endpoint's URL: the tokens' "aud" claim and
	// the Resource of Config.
	Resource string
	// TTL is how long a token is valid from when it is minted.
	// Default: DefaultDevTokenTTL.
	TTL time.Duration
}

// DefaultDevTokenTTL is how long a DevIssuer's tokens are valid by default.
const DefaultDevTokenTTL = time.Hour

// NewDevIssuer returns a DevIssuer for the MCP endpoint at resource with a
// random secret and, as its issuer, the endpoint's origin (for
// https://mcp.example.com/mcp, https://mcp.example.com).
func NewDevIssuer(resource string) *DevIssuer {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // never fails (crypto/rand)
	return &DevIssuer{Secret: secret, Issuer: origin(resource), Resource: resource}
}

// origin is the scheme and host of u, or u itself if it has none.
func origin(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" || p.Host == "" {
		return u
	}
	return p.Scheme + "://" + p.Host
}

// Config returns the Config that accepts exactly d's tokens. Add the rest
// of the server's facts (Scopes, ResourceName) to it.
func (d *DevIssuer) Config() Config {
	return Config{
		Keys:       map[string]any{"": d.Secret},
		Algorithms: []string{"HS256"},
		Issuer:     d.Issuer,
		Resource:   d.Resource,
	}
}

// Token mints a valid token for subject granting scopes.
func (d *DevIssuer) Token(subject string, scopes ...string) string {
	c := map[string]any{"sub": subject}
	if len(scopes) > 0 {
		c["scope"] = strings.Join(scopes, " ")
	}
	return d.Sign(c)
}

// Sign mints a token with claims, to which it adds the "iss", "aud",
// "iat" and "exp" claims that claims does not set itself; a test forges
// an expired or foreign token by setting them. claims is not changed.
func (d *DevIssuer) Sign(claims map[string]any) string {
	if len(d.Secret) < 32 {
		panic(fmt.Sprintf("auth: DevIssuer: a %d-byte secret is too short for HS256 (32 bytes at least)", len(d.Secret)))
	}
	ttl := d.TTL
	if ttl == 0 {
		ttl = DefaultDevTokenTTL
	}
	now := time.Now()
	c := jwt.MapClaims{"iss": d.Issuer, "aud": d.Resource, "iat": now.Unix(), "exp": now.Add(ttl).Unix()}
	maps.Copy(c, claims)
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(d.Secret)
	if err != nil {
		panic(fmt.Errorf("auth: DevIssuer: %w", err))
	}
	return s
}
