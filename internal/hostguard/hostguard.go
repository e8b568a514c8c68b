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

	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/jsonrpc"
)

// Config configures the guard.
type Config struct {
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

// loopbackNames are the Host names a loopback bind answers to.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// New returns the DNS-rebinding guard the MCP transport requires.
//
// A rebinding page sends its own name in Host and its own origin in
// Origin, so a name the operator did not list proves nothing, and an
// Origin equal to Host proves nothing either. Hence:
//
//   - Host. On a loopback address it must be localhost, 127.0.0.1, [::1]
//     or listed in AllowedHosts. On a public address it must be an IP
//     address or listed, once AllowedHosts is set; without the list any
//     Host passes there, and the Origin rule below still holds.
//   - Origin, when sent (browsers send it on every POST and DELETE): it
//     must be listed in AllowedOrigins, or be the very origin of the
//     request (the host and port of Host) on a host that is trusted:
//     listed, an IP address, or a loopback name on a loopback address. A
//     page on another port of localhost is another origin.
//
// Clients that are not browsers send no Origin and pass on the Host rule
// alone. Refused requests get 403 with a JSON-RPC error body.
func New(cfg Config) func(http.Handler) http.Handler {
	var hosts []string
	for _, h := range cfg.AllowedHosts {
		hosts = append(hosts, strings.Trim(strings.ToLower(h), "[]"))
	}
	origins := make([]string, 0, len(cfg.AllowedOrigins))
	for _, o := range cfg.AllowedOrigins {
		origins = append(origins, strings.TrimSuffix(strings.ToLower(o), "/"))
	}
	// trusted reports whether a request naming host reaches this server
	// by a name of its own: a rebinding page's name is none of these.
	trusted := func(host string, local bool) bool {
		if local {
			return slices.Contains(loopbackNames, host) || slices.Contains(hosts, host)
		}
		return net.ParseIP(host) != nil || slices.Contains(hosts, host)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cfg.Skipper != nil && cfg.Skipper(r) {
				next.ServeHTTP(w, r)
				return
			}
			local := loopbackBind(r)
			host := hostname(r.Host)
			if (local || len(hosts) > 0) && !trusted(host, local) {
				refuse(w, r, "Forbidden: Host "+quote(r.Host)+" is not allowed")
				return
			}
			if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, r.Host, trusted(host, local), local, origins) {
				refuse(w, r, "Forbidden: Origin "+quote(o)+" is not allowed")
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
	if tcp, ok := addr.(*net.TCPAddr); ok {
		// The common case, without formatting and parsing the address on
		// every request.
		return tcp.IP.IsLoopback()
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
	// Only a port after the last "]" is worth splitting off: without one,
	// SplitHostPort would build an error for every request.
	if strings.LastIndexByte(h, ':') > strings.LastIndexByte(h, ']') {
		if host, _, err := net.SplitHostPort(h); err == nil {
			return strings.Trim(host, "[]")
		}
	}
	return strings.Trim(h, "[]")
}

// originAllowed reports whether origin may call: it is listed, or it is
// the request's own origin on a trusted host. On a loopback address the
// loopback names are one host: http://127.0.0.1:8080 is the own origin of
// a request to localhost:8080, since one process holds a loopback port.
func originAllowed(origin, host string, trustedHost, local bool, allowed []string) bool {
	o := strings.TrimSuffix(strings.ToLower(origin), "/")
	if slices.Contains(allowed, o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || !trustedHost {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	_, port, _ := net.SplitHostPort(host)
	return local && port != "" && u.Port() == port &&
		slices.Contains(loopbackNames, strings.Trim(u.Hostname(), "[]")) && slices.Contains(loopbackNames, hostname(host))
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

// refuse answers 403 with a JSON-RPC error: the request has no id yet,
// and its body is not waited for.
func refuse(w http.ResponseWriter, r *http.Request, msg string) {
	refusal.AbandonBody(w, r)
	refusal.Write(w, nil, refusal.New(http.StatusForbidden, jsonrpc.CodeInvalidRequest, "%s", msg))
}
