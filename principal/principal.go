// Package principal carries the authenticated caller of a request through
// its context.Context: authentication middleware (such as auth.JWT) puts
// it there, and the Specter router reads it so connect, sessions,
// per-route scopes and logs all agree on who is calling.
package principal

import (
	"context"
	"slices"
)

// Principal is an authenticated caller.
type Principal struct {
	// ID identifies the caller (a token's subject).
	ID string
	// Scopes are the OAuth scopes the caller was granted.
	Scopes []string
	// Claims are the token's claims, for application use.
	Claims map[string]any
}

// HasScope reports whether the caller was granted scope.
func (p *Principal) HasScope(scope string) bool {
	return p != nil && slices.Contains(p.Scopes, scope)
}

// HasScopes reports whether the caller was granted every scope in scopes.
func (p *Principal) HasScopes(scopes ...string) bool {
	for _, s := range scopes {
		if !p.HasScope(s) {
			return false
		}
	}
	return true
}

type key struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, key{}, p)
}

// FromContext returns the principal in ctx, if any.
func FromContext(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(key{}).(*Principal)
	return p, ok && p != nil
}
