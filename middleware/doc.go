// Package middleware holds the net/http middleware of an MCP endpoint:
// HostGuard (DNS-rebinding protection), CORS (browser-based clients on
// other origins, off unless installed), RequestLog (one zerolog line per
// MCP message), Recover, and RateLimit (a token bucket per caller, in
// process or, with a RateStore such as redisbp's, shared by every node).
// Each is a plain func(http.Handler) http.Handler with a WithConfig
// variant, as in Echo; use echo.WrapMiddleware to put one on an Echo
// group, and separate instances on separate groups or routes for
// per-route limits.
package middleware
