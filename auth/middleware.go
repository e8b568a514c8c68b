package auth

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/internal/bearer"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/principal"
)

// JWT returns Echo middleware that authenticates every request with a
// bearer JWT (see Verifier.Middleware for what it accepts and how it
// refuses). It panics if cfg is invalid, with the error NewVerifier
// returns, so that a misconfigured server does not start. Its JWK Set
// refresh, if any, runs until cfg.Context is done.
func JWT(cfg Config) echo.MiddlewareFunc {
	v, err := NewVerifier(cfg)
	if err != nil {
		panic(err)
	}
	return v.EchoMiddleware()
}

// EchoMiddleware returns v as Echo middleware; see Middleware.
func (v *Verifier) EchoMiddleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r, err := v.authenticate(c.Request())
			if err != nil {
				v.refuse(c.Response(), c.Request(), err)
				return nil
			}
			c.SetRequest(r)
			return next(c)
		}
	}
}

// Middleware authenticates every request to next with the bearer token of
// its Authorization header, as the MCP specification requires. On success
// the request's context carries the token's *Claims (ClaimsFrom) and a
// *principal.Principal with the caller's ID, scopes and claims.
//
// Otherwise next is not called and the client gets, with a Bearer
// WWW-Authenticate challenge and a JSON-RPC error body:
//   - 401 without an error code when no bearer token was sent (no
//     Authorization header, or another scheme such as Basic);
//   - 401 invalid_token when the token is too long, malformed, not signed
//     by a trusted key with an allowed algorithm, expired, not yet valid,
//     issued in the future, from another issuer or for another audience;
//   - 400 invalid_request when the request is malformed: more than one
//     Authorization header, "Bearer" without a token or with something
//     that is not one token, or an access_token in the query string.
//
// Tokens in the query string are refused even beside a valid header: the
// MCP specification forbids sending them there (they end up in logs and
// browser history), and RFC 6750 §3.1 answers a request that uses an
// unsupported method, or more than one, with invalid_request.
//
// A refusal does not wait for the request's body, which is never read: the
// answer goes out at once and the connection closes after it, so that a
// client trickling a body cannot hold a connection open.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, err := v.authenticate(r)
		if err != nil {
			v.refuse(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate verifies the request's token and returns the request with
// the claims and the principal in its context. A request the Skipper
// skips is returned without them. Either way the context names the
// metadata URL, so that the router's own challenges (a refusal in
// connect, a missing tool scope) point where this package's do.
func (v *Verifier) authenticate(r *http.Request) (*http.Request, *Error) {
	ctx := bearer.WithResourceMetadata(r.Context(), v.metadataURL)
	if v.cfg.Skipper != nil && v.cfg.Skipper(r) {
		return r.WithContext(ctx), nil
	}
	token, aerr := v.bearer(r)
	if aerr != nil {
		return r, aerr
	}
	claims, aerr := v.verify(r.Context(), token)
	if aerr != nil {
		return r, aerr
	}
	id, _ := claims.Raw[v.cfg.PrincipalClaim].(string) // Verify made sure it is a non-empty string
	ctx = principal.NewContext(ctx, &principal.Principal{ID: id, Scopes: claims.Scopes, Claims: claims.Raw})
	return r.WithContext(withClaims(ctx, claims)), nil
}

// bearer extracts the token from the Authorization header (RFC 6750 §2.1),
// the only place the MCP specification allows it.
func (v *Verifier) bearer(r *http.Request) (string, *Error) {
	// The query is decoded first: access%5Ftoken is the same parameter to
	// every parser that reads it later.
	if r.URL.RawQuery != "" && r.URL.Query().Has("access_token") {
		return "", v.refusal(http.StatusBadRequest, CodeInvalidRequest, "access tokens are not accepted in the query string; send Authorization: Bearer <token>", nil)
	}
	values := r.Header.Values("Authorization")
	switch len(values) {
	case 0:
		return "", v.refusal(http.StatusUnauthorized, "", "a bearer token is required", nil)
	case 1:
	default:
		return "", v.refusal(http.StatusBadRequest, CodeInvalidRequest, "more than one Authorization header", nil)
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		// RFC 6750 §3.1: an unsupported scheme is like no credentials at
		// all, so the challenge carries no error code.
		return "", v.refusal(http.StatusUnauthorized, "", "a bearer token is required", nil)
	}
	token = strings.TrimLeft(token, " ")
	switch {
	case token == "":
		return "", v.refusal(http.StatusBadRequest, CodeInvalidRequest, "the Bearer credentials are empty", nil)
	case len(token) > v.cfg.MaxTokenBytes:
		// Refused before it is even scanned.
		return "", v.invalid("token too large", nil)
	case !isToken68(token):
		return "", v.refusal(http.StatusBadRequest, CodeInvalidRequest, "the Bearer credentials are not a single token", nil)
	}
	return token, nil
}

// isToken68 reports whether s has the b64token syntax of RFC 6750 §2.1.
// A JWT always does; spaces or commas mean several tokens, or none.
func isToken68(s string) bool {
	end := len(strings.TrimRight(s, "="))
	if end == 0 {
		return false
	}
	for i := range end {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// refuse answers a refused request with cfg.ErrorHandler or the default.
func (v *Verifier) refuse(w http.ResponseWriter, r *http.Request, err *Error) {
	// The body is never read: a client trickling it must not hold the
	// answer, the connection and its goroutine.
	refusal.AbandonBody(w, r)
	if v.cfg.ErrorHandler != nil {
		v.cfg.ErrorHandler(w, r, err)
		return
	}
	err.Respond(w)
}
