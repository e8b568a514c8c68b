package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"
)

// Claims are the verified claims of an access token.
type Claims struct {
	// Subject is the "sub" claim.
	Subject string
	// Issuer is the "iss" claim, equal to Config.Issuer.
	Issuer string
	// Audience is the "aud" claim; it contains Config.Audience.
	Audience []string
	// ExpiresAt is the "exp" claim.
	ExpiresAt time.Time
	// Scopes are the granted scopes (see Config.ScopeClaim).
	Scopes []string
	// Raw holds every claim as decoded from JSON (numbers are float64).
	// It is shared with the principal: treat it as read-only.
	Raw map[string]any
}

type claimsKey struct{}

// ClaimsFrom returns the claims that JWT or Verifier.Middleware put in ctx
// (a request's context), if any.
func ClaimsFrom(ctx context.Context) (*Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(*Claims)
	return c, ok && c != nil
}

func withClaims(ctx context.Context, c *Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, c)
}

// ClaimsFromEcho returns the claims of the request of c, if any.
func ClaimsFromEcho(c echo.Context) (*Claims, bool) {
	return ClaimsFrom(c.Request().Context())
}

// errScopeClaim is a scope claim that is neither a string nor an array
// of strings.
var errScopeClaim = errors.New("scope claim is neither a string nor an array of strings")

// scopes reads the granted scopes from the claim name, or from "scp" when
// the token has no such claim. Issuers disagree on the form — OAuth's
// "scope" is one space-separated string (RFC 9068), others send "scp" as
// an array — so both forms are read under either name.
func scopes(raw jwt.MapClaims, name string) ([]string, error) {
	v, ok := raw[name]
	if !ok {
		v, ok = raw["scp"]
	}
	if !ok {
		return nil, nil
	}
	switch s := v.(type) {
	case string:
		return strings.Fields(s), nil
	case []any:
		out := make([]string, 0, len(s))
		for _, e := range s {
			str, ok := e.(string)
			if !ok {
				return nil, errScopeClaim
			}
			out = append(out, strings.Fields(str)...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: got %T", errScopeClaim, v)
}
