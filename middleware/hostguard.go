package middleware

import (
	"net/http"

	"github.com/specter-mcp/specter/internal/hostguard"
)

// HostGuardConfig configures HostGuard.
type HostGuardConfig struct {
	// Skipper skips the guard for a request when it returns true.
	// Default: nil (never skip).
	Skipper func(*http.Request) bool
	// AllowedHosts are further Host names (without port) accepted when the
	// server is reached on a loopback address. localhost, 127.0.0.1 and
	// [::1] are always accepted there. Default: none.
	AllowedHosts []string
	// AllowedOrigins are further origins ("https://app.example.com")
	// accepted in the Origin header. Loopback origins (for loopback
	// binds) and same-origin requests are always accepted. Default: none.
	AllowedOrigins []string
}

// HostGuard protects an endpoint from DNS rebinding with the default
// config: see HostGuardWithConfig.
func HostGuard() func(http.Handler) http.Handler { return HostGuardWithConfig(HostGuardConfig{}) }

// HostGuardWithConfig returns the DNS-rebinding guard the MCP transport
// requires, the same one a specter.Router runs by default. When the
// server is reached on a loopback address, the Host header must name a
// loopback host: a web page that rebinds its own name to 127.0.0.1 still
// sends its own name. An Origin header, wherever it is sent, must be
// same-origin, loopback (for loopback binds) or allowed. Refused requests
// get 403 with a JSON-RPC error body.
func HostGuardWithConfig(cfg HostGuardConfig) func(http.Handler) http.Handler {
	return hostguard.New(hostguard.Config(cfg))
}
