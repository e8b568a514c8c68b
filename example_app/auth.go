package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

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
	basic := []string{"foo", "get_study", "whoami", "list_studies", "api_whoami", "api_search_studies", "api_get_study"}
	if p == planUltra {
		return append(basic, "long_task", "update_study", "api_set_study_status")
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

// newIssuer returns the demo authorization server of the app whose MCP
// endpoint is mcpURL: an auth.DevIssuer signing HS256 tokens with a secret
// shared with the app's auth.JWT, issued by the app's origin. A real
// deployment verifies the tokens of its authorization server instead,
// usually with public keys from its JWKS URL (auth.Config.JWKSURL).
func newIssuer(secret []byte, mcpURL string) *auth.DevIssuer {
	return &auth.DevIssuer{Secret: secret, Issuer: strings.TrimSuffix(mcpURL, mcpPath), Resource: mcpURL, TTL: tokenTTL}
}

// tokenFor signs a token for u granting scopes.
func tokenFor(is *auth.DevIssuer, u user, scopes []string) string {
	claims := map[string]any{"sub": u.ID, "name": u.Name, "plan": string(u.Plan)}
	if len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	}
	return is.Sign(claims)
}

// authConfig is the app's one statement of its authorization facts: it
// accepts exactly the issuer's tokens, and drives the metadata document
// and every challenge, the router's included.
func authConfig(is *auth.DevIssuer) auth.Config {
	cfg := is.Config()
	cfg.Scopes = []string{scopeJobs}
	cfg.ResourceName = "Specter example"
	return cfg
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
	// A client that renders no MCP Apps cannot run the dashboard, so the
	// tools only the dashboard calls are hidden from it.
	tools := visibleTools(u.Plan, c.SupportsUI())
	c.PutInstructions(fmt.Sprintf("You are helping %s, who is on the %s plan. Tools available on this plan: %s.",
		u.Name, u.Plan, strings.Join(tools, ", ")))
	c.AllowTools(tools...)
	return nil
}
