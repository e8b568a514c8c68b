package transport

import (
	"net"
	"net/netip"

	"github.com/specter-mcp/specter/internal/access"
	"github.com/specter-mcp/specter/internal/refusal"
)

// Quotas counts what each caller holds: sessions, GET streams and
// subscriptions/listen streams, on this node, or on every node when
// Shared is set (the backplane counts).
type Quotas struct {
	Sessions, Streams, Listeners *access.Quota // the limits; the counts when Shared is nil
	Shared                       *access.Shared
}

// session counts a new session for holder on this node, before it is
// created: release, if not nil, gives it back when the session ends here.
// A shared count is taken once the session exists (sessionCreated).
func (q Quotas) session(holder string) (release func(), refused *refusal.Error) {
	if q.Shared != nil {
		return nil, nil
	}
	release, ok := q.Sessions.Take(holder)
	if !ok {
		return nil, refusal.SessionsPerCaller(q.Sessions.Limit())
	}
	return release, nil
}

// sessionCreated counts session id, just created, for holder on every
// node when the count is shared. It counts while the session exists.
func (q Quotas) sessionCreated(holder, id string) *refusal.Error {
	limit := q.Sessions.Limit()
	if q.Shared == nil || limit <= 0 {
		return nil
	}
	switch ok, err := q.Shared.HoldSession(holder, id, limit); {
	case err != nil:
		return refusal.StorageUnavailable
	case !ok:
		return refusal.SessionsPerCaller(limit)
	}
	return nil
}

// held counts one more of kind (held open, as a stream) for holder, in
// local or Shared.
func (q Quotas) held(local *access.Quota, kind, holder string, over func(int) *refusal.Error) (release func(), refused *refusal.Error) {
	limit := local.Limit()
	if q.Shared == nil || limit <= 0 {
		release, ok := local.Take(holder)
		if !ok {
			return nil, over(limit)
		}
		return release, nil
	}
	switch release, ok, err := q.Shared.Hold(kind, holder, limit); {
	case err != nil:
		return nil, refusal.StorageUnavailable
	case !ok:
		return nil, over(limit)
	default:
		return release, nil
	}
}

func (q Quotas) stream(holder string) (func(), *refusal.Error) {
	return q.held(q.Streams, "streams", holder, refusal.StreamsPerCaller)
}

func (q Quotas) listener(holder string) (func(), *refusal.Error) {
	return q.held(q.Listeners, "listeners", holder, refusal.ListenersPerCaller)
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
