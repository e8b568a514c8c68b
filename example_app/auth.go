package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
)

// scopeJobs is the OAuth scope long_task needs on top of the ultra plan.
const scopeJobs = "jobs:run"

// tokenTTL is how long the demo tokens are valid.
const tokenTTL = 24 * time.Hour

// minSecretBytes is the shortest HS256 secret accepted (RFC 7518 §3.2).
const minSecretBytes = 32

// plan decides which tools a user may call.
type plan string

const (
	planBasic plan = "basic"
	planUltra plan = "ultra"
)

// tools lists the tools of the plan, for the connect allow-list.
func (p plan) tools() []string {
	basic := []string{"foo", "get_study", "whoami"}
	if p == planUltra {
		return append(basic, "long_task")
	}
	return basic
}

// user is an authenticated caller, read from the claims of its token.
// Connect assigns it under "user".
type user struct {
	ID   string
	Name string
	Plan plan
}

// The demo users the issuer mints tokens for at start.
var (
	basicUser = user{ID: "user-basic", Name: "Basil Basic", Plan: planBasic}
	ultraUser = user{ID: "user-ultra", Name: "Ursula Ultra", Plan: planUltra}
)

// grantedScopes are the scopes of a demo user's token: only the ultra
// user may run jobs.
func grantedScopes(u user) []string {
	if u.Plan == planUltra {
		return []string{scopeJobs}
	}
	return nil
}

// issuer is the demo authorization server: it signs tokens with an HS256
// secret shared with the app's auth.JWT. A real deployment verifies the
// tokens of its authorization server instead, usually with public keys
// from its JWKS URL (auth.Config.JWKSURL).
type issuer struct {
	secret []byte
	url    string // the "iss" claim: the app's origin, the issuer of its tokens
	aud    string // the "aud" claim: the app's MCP endpoint URL
}

// newIssuer returns the issuer of the app whose MCP endpoint is mcpURL.
func newIssuer(secret []byte, mcpURL string) issuer {
	return issuer{secret: secret, url: strings.TrimSuffix(mcpURL, mcpPath), aud: mcpURL}
}

// mint signs a token for u granting scopes, valid for ttl from now.
func (is issuer) mint(u user, scopes []string, ttl time.Duration) (string, error) {
	now := time.Now()
	claims := jwt.MapClaims{
		"iss":  is.url,
		"aud":  is.aud,
		"sub":  u.ID,
		"name": u.Name,
		"plan": string(u.Plan),
		"iat":  now.Unix(),
		"exp":  now.Add(ttl).Unix(),
	}
	if len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(is.secret)
}

// verifier returns the auth.JWT configuration that accepts exactly the
// issuer's tokens for this app, with challenges pointing at metadataURL.
func (is issuer) verifier(metadataURL string) auth.Config {
	return auth.Config{
		Keys:                map[string]any{"": is.secret},
		Algorithms:          []string{"HS256"},
		Issuer:              is.url,
		Audience:            is.aud,
		ResourceMetadataURL: metadataURL,
	}
}

// loadSecret returns the issuer's secret: $SPECTER_JWT_SECRET as given, or
// a random one (random is true) when it is unset.
func loadSecret(env string) (secret []byte, random bool, err error) {
	if env != "" {
		if len(env) < minSecretBytes {
			return nil, false, fmt.Errorf("SPECTER_JWT_SECRET has %d bytes; HS256 needs at least %d", len(env), minSecretBytes)
		}
		return []byte(env), false, nil
	}
	b := make([]byte, minSecretBytes)
	if _, err := rand.Read(b); err != nil {
		return nil, false, err
	}
	return []byte(hex.EncodeToString(b)), true, nil
}

// errNoPlan refuses a valid token whose claims name no known plan.
var errNoPlan = errors.New(`the token's "plan" claim names no plan of this app`)

// userFrom reads the user from the verified claims of a token.
func userFrom(c *auth.Claims) (user, error) {
	p, _ := c.Raw["plan"].(string)
	name, _ := c.Raw["name"].(string)
	switch plan(p) {
	case planBasic, planUltra:
		return user{ID: c.Subject, Name: name, Plan: plan(p)}, nil
	}
	return user{}, errNoPlan
}

// connect runs on every MCP request, after auth.JWT verified the bearer
// token: it decides what the caller sees from the token's claims. Tools
// outside the plan are hidden from tools/list and refused exactly like
// tools that do not exist.
func connect(c *specter.Context) error {
	claims, ok := auth.ClaimsFrom(c.HTTPRequest().Context())
	if !ok {
		// Unreachable behind auth.JWT; refuse rather than serve anonymously.
		return specter.Unauthorized("a bearer token is required")
	}
	u, err := userFrom(claims)
	if err != nil {
		return specter.Forbidden(err.Error())
	}
	c.Assign("user", u)
	c.PutInstructions(fmt.Sprintf("You are helping %s, who is on the %s plan. Tools available on this plan: %s.",
		u.Name, u.Plan, strings.Join(u.Plan.tools(), ", ")))
	c.AllowTools(u.Plan.tools()...)
	return nil
}
