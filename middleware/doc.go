// Package middleware holds the net/http middleware of an MCP endpoint:
// HostGuard (DNS-rebinding protection), RequestLog (one zerolog line per
// MCP message) and Recover. Each is a plain func(http.Handler) http.Handler
// with a WithConfig variant, as in Echo; use echo.WrapMiddleware to put one
// on an Echo group.
package middleware
