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
	// AllowedHosts are the host names (without port) the server answers
	// to, besides localhost, 127.0.0.1 and [::1] on loopback binds and IP
	// addresses anywhere. Once set, a request on a public address must
	// name one of them (or an IP address) in Host; and a same-origin
	// browser request is accepted only on these names. Default: none.
	AllowedHosts []string
	// AllowedOrigins are the origins ("https://app.example.com") whose
	// pages may call the server from a browser, whatever the Host.
	// Default: none.
	AllowedOrigins []string
}

// HostGuard protects an endpoint from DNS rebinding with the default
// config: see HostGuardWithConfig.
func HostGuard() func(http.Handler) http.Handler { return HostGuardWithConfig(HostGuardConfig{}) }

// HostGuardWithConfig returns the DNS-rebinding guard the MCP transport
// requires, the same one a specter.Router runs by default. A rebinding
// page sends its own name in Host and its own origin in Origin, so only
// names the operator vouches for count:
//
//   - Host: on a loopback address, localhost, 127.0.0.1, [::1] or a listed
//     name; on a public address, once AllowedHosts is set, a listed name
//     or an IP address (without the list, any Host passes there).
//   - Origin, when sent: a listed origin, or the request's own origin on
//     a trusted host (listed, an IP address, or a loopback name on a
//     loopback address). A page on another port of localhost is refused
//     unless listed.
//
// Refused requests get 403 with a JSON-RPC error body.
func HostGuardWithConfig(cfg HostGuardConfig) func(http.Handler) http.Handler {
	return hostguard.New(hostguard.Config(cfg))
}
