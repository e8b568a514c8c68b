// Package echov5 mounts a Specter router on Echo v5
// (github.com/labstack/echo/v5), as Router.Mount does on Echo v4: the
// group's middleware (authentication, logging, rate limits) runs before
// connect, and handlers reach the Echo context of their HTTP request.
//
//	e := echo.New()
//	echov5.MountMetadata(e, cfg)
//	echov5.Mount(r, e.Group("/mcp", echov5.JWT(cfg)))
//
// Event streams go through Echo v5's response writer, which flushes and
// unwraps to the connection's, so streaming and the router's read
// deadlines work as on Echo v4.
package echov5

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
)

type contextKey struct{}

// Mount registers r's MCP endpoint (POST, GET and DELETE) at the group's
// prefix, after the group's middleware and the given one. OPTIONS is
// routed there too, for a CORS middleware first in the group
// (middleware.CORS, wrapped with echo.WrapMiddleware) to answer browsers'
// preflights; without one the router answers OPTIONS with 405.
//
// When the Echo has an IPExtractor, the router sees the address it
// extracts as the request's RemoteAddr, so that per-address quotas count
// clients rather than the proxy in front of them, as with Router.Mount on
// Echo v4.
func Mount(r *specter.Router, g *echo.Group, middleware ...echo.MiddlewareFunc) {
	h := func(c *echo.Context) error {
		req := c.Request()
		req = req.WithContext(context.WithValue(req.Context(), contextKey{}, c))
		if c.Echo().IPExtractor != nil {
			req.RemoteAddr = net.JoinHostPort(c.RealIP(), "0")
		}
		r.ServeHTTP(c.Response(), req)
		return nil
	}
	g.Match([]string{http.MethodPost, http.MethodGet, http.MethodDelete, http.MethodOptions}, "", h, middleware...)
}

// Context returns the Echo v5 context of the HTTP request that carried
// c's MCP message, in connect and in handlers, or nil when the router
// was not mounted with Mount. Under Mount, specter.Context.Echo, the Echo
// v4 context, is nil.
// Like the request, it is Echo's only until the request ends: work that
// outlives it (NoReply) must not use it.
func Context(c *specter.Context) *echo.Context {
	if c == nil || c.HTTPRequest() == nil {
		return nil
	}
	ec, _ := c.HTTPRequest().Context().Value(contextKey{}).(*echo.Context)
	return ec
}

// JWT is auth.JWT for Echo v5: middleware that authenticates every
// request with a bearer JWT, as auth.Verifier.Middleware describes. It
// panics if cfg is invalid, so that a misconfigured server does not
// start.
func JWT(cfg auth.Config) echo.MiddlewareFunc {
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		panic(err)
	}
	return echo.WrapMiddleware(v.Middleware)
}

// MountMetadata is auth.MountMetadata for Echo v5: it serves cfg's
// protected resource metadata at the well-known URL its challenges name
// and at the root one. It panics if the metadata is invalid, or if cfg is
// InHouse, which has none.
func MountMetadata(e *echo.Echo, cfg auth.Config) {
	if cfg.InHouse {
		panic("echov5: MountMetadata: an InHouse Config has no protected resource metadata: its tokens come from the app, not an OAuth authorization server")
	}
	h := echo.WrapHandler(auth.MetadataHandler(cfg.Metadata()))
	e.Any(auth.WellKnownPath, h)
	if u, err := url.Parse(cfg.Resource); err == nil {
		if p := strings.TrimSuffix(u.Path, "/"); p != "" {
			e.Any(auth.WellKnownPath+p, h)
		}
	}
}
