package auth

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter/internal/bearer"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/principal"
)

// BridgeConfig configures BridgeWithConfig.
type BridgeConfig struct {
	// Skipper skips the bridge, Authenticate included, for a request when
	// it returns true: the request reaches the router without a principal.
	// Default: nil (every request).
	Skipper func(c echo.Context) bool
	// Authenticate is the app's own authentication middleware: echo-jwt,
	// a session check, middleware.KeyAuth, or any echo.MiddlewareFunc that
	// refuses a request by returning an error (an *echo.HTTPError such as
	// echo.ErrUnauthorized) rather than by writing an answer itself.
	// Required.
	Authenticate echo.MiddlewareFunc
	// Identify returns the caller of a request Authenticate let through,
	// from what Authenticate left on c (echo-jwt's *jwt.Token under "user",
	// a session's user, an API key's owner). An error, or a nil principal,
	// refuses the request: an *echo.HTTPError with its status and message,
	// any other error with 401 and the error's text, which the client sees
	// (say which credential is missing or wrong, nothing more). Required.
	Identify func(c echo.Context) (*principal.Principal, error)
	// Scopes are named in the scope parameter of 401 challenges, as
	// auth.Config.Scopes are. Default: none.
	Scopes []string
}

// Bridge puts an app's existing authentication middleware in front of an
// MCP router, for apps whose users already log in some other way than
// with OAuth tokens meant for the MCP server (see BridgeConfig). It is
// BridgeWithConfig with only Authenticate and Identify.
func Bridge(authenticate echo.MiddlewareFunc, identify func(c echo.Context) (*principal.Principal, error)) echo.MiddlewareFunc {
	return BridgeWithConfig(BridgeConfig{Authenticate: authenticate, Identify: identify})
}

// BridgeWithConfig returns Echo middleware that runs cfg.Authenticate and
// gives the MCP router what it needs from it:
//
//   - the caller: cfg.Identify's principal goes into the request's context
//     (principal.NewContext), where the router, connect (c.Caller()) and
//     per-route scopes read it, in both protocol eras and over stdio;
//   - refusals MCP clients understand: where Authenticate or Identify
//     refuses with a 4xx status, the answer keeps that status and carries
//     a JSON-RPC error body without an id, such as
//     {"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: invalid or expired jwt"}},
//     and a 401 a Bearer WWW-Authenticate challenge (error="invalid_token"
//     when the request carried an Authorization header). Without them an
//     MCP client reads the app's own error page, or a stdio client gets
//     "the server answered HTTP 401 with no JSON-RPC message".
//
// Other errors (a 5xx, an error that is no *echo.HTTPError) go to Echo's
// error handler as before. Challenges name no RFC 9728 metadata: such an
// app's clients are given their credentials, they do not discover an
// authorization server. It panics without Authenticate or Identify.
func BridgeWithConfig(cfg BridgeConfig) echo.MiddlewareFunc {
	if cfg.Authenticate == nil || cfg.Identify == nil {
		panic("auth: Bridge needs both Authenticate (the app's middleware) and Identify (its caller as a principal)")
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if cfg.Skipper != nil && cfg.Skipper(c) {
				return next(c)
			}
			passed := false // an error after this is the router's, not a refusal
			err := cfg.Authenticate(func(c echo.Context) error {
				p, err := cfg.Identify(c)
				if err == nil && p == nil {
					err = errors.New("the credentials identify no caller")
				}
				if err != nil {
					if he := (*echo.HTTPError)(nil); !errors.As(err, &he) {
						err = &echo.HTTPError{Code: http.StatusUnauthorized, Message: err.Error(), Internal: err}
					}
					return err
				}
				passed = true
				r := c.Request()
				c.SetRequest(r.WithContext(principal.NewContext(r.Context(), p)))
				return next(c)
			})(c)
			var he *echo.HTTPError
			if passed || !errors.As(err, &he) || he.Code < 400 || he.Code >= 500 || c.Response().Committed {
				return err
			}
			bridgeRefuse(c, he, cfg.Scopes)
			return nil
		}
	}
}

// bridgeRefuse answers a refused request the way JWT does: status,
// challenge (for a 401) and a JSON-RPC error body.
func bridgeRefuse(c echo.Context, he *echo.HTTPError, scopes []string) {
	w, r := c.Response(), c.Request()
	refusal.AbandonBody(w, r)
	msg, ok := he.Message.(string)
	if !ok || msg == "" {
		msg = http.StatusText(he.Code)
	}
	if he.Code == http.StatusUnauthorized {
		code := ""
		if r.Header.Get("Authorization") != "" {
			code = CodeInvalidToken
		}
		w.Header().Set("WWW-Authenticate", bearer.Challenge("", scopes, code))
	}
	w.Header().Set("Cache-Control", "no-store")
	refusal.Write(w, nil, refusal.Status(he.Code, msg))
}
