// Package hostguard protects an MCP endpoint from DNS rebinding: a web
// page that makes the browser send requests to a server it should not
// reach. It checks the Host and Origin headers of each request and
// refuses the rest with 403 and a JSON-RPC error body.
//
// Both the router (on by default) and middleware.HostGuard use it.
package hostguard

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/specter-mcp/specter/jsonrpc"
)

// Config configures the guard.
type Config struct {
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

// New returns the DNS-rebinding guard the MCP transport requires. When the server is reached on a loopback address, the Host
// header must name a loopback host: a web page that rebinds its own name
// to 127.0.0.1 still sends its own name. An Origin header, wherever it is
// sent, must be same-origin, loopback (for loopback binds) or allowed.
// Refused requests get 403 with a JSON-RPC error body.
func New(cfg Config) func(http.Handler) http.Handler {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	for _, h := range cfg.AllowedHosts {
		hosts = append(hosts, strings.Trim(strings.ToLower(h), "[]"))
	}
	origins := make([]string, 0, len(cfg.AllowedOrigins))
	for _, o := range cfg.AllowedOrigins {
		origins = append(origins, strings.TrimSuffix(strings.ToLower(o), "/"))
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cfg.Skipper != nil && cfg.Skipper(r) {
				next.ServeHTTP(w, r)
				return
			}
			local := loopbackBind(r)
			if local && !slices.Contains(hosts, hostname(r.Host)) {
				refuse(w, "Forbidden: Host "+quote(r.Host)+" is not allowed")
				return
			}
			if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, r.Host, local, hosts, origins) {
				refuse(w, "Forbidden: Origin "+quote(o)+" is not allowed")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// loopbackBind reports whether the connection arrived on a loopback
// address. Without that information (a handler called directly) the
// stricter rule applies.
func loopbackBind(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return true
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return true
	}
	ip := net.ParseIP(host)
	return ip == nil || ip.IsLoopback()
}

func hostname(hostport string) string {
	h := strings.ToLower(hostport)
	if host, _, err := net.SplitHostPort(h); err == nil {
		return strings.Trim(host, "[]")
	}
	return strings.Trim(h, "[]")
}

func originAllowed(origin, host string, local bool, hosts, allowed []string) bool {
	o := strings.TrimSuffix(strings.ToLower(origin), "/")
	if slices.Contains(allowed, o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true // same origin
	}
	return local && slices.Contains(hosts, hostname(u.Host))
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' || r == '\\' {
			return '?'
		}
		return r
	}, s) + `"`
}

func refuse(w http.ResponseWriter, msg string) {
	jsonrpc.WriteError(w, http.StatusForbidden, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "%s", msg))
}
