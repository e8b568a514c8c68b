package transport

import (
	"net"
	"net/netip"

	"github.com/specter-mcp/specter/internal/access"
)

// Quotas counts what each caller holds on this node: sessions, GET streams
// and subscriptions/listen streams.
type Quotas struct {
	Sessions, Streams, Listeners *access.Quota
}

// DefaultQuotas are 100 sessions, 100 streams and 16 listeners a caller.
func DefaultQuotas() Quotas {
	return Quotas{Sessions: access.NewQuota(100), Streams: access.NewQuota(100), Listeners: access.NewQuota(16)}
}

// CallerKey names who a request counts against: its principal, or, for
// an anonymous caller, its client address ip, an IPv6 address counting
// for its /64 network. The prefixes keep a principal named like an
// address apart from that address. ip may carry a port, as
// http.Request.RemoteAddr does.
func CallerKey(principal, ip string) string {
	if principal != "" {
		return "principal:" + principal
	}
	if host, _, err := net.SplitHostPort(ip); err == nil {
		ip = host
	}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return "ip:" + ip
	}
	if a = a.Unmap().WithZone(""); a.Is6() {
		return "ip:" + netip.PrefixFrom(a, 64).Masked().String()
	}
	return "ip:" + a.String()
}
