package specter

import (
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/access"
)

// Per-principal quotas keep one caller from taking what every caller
// shares: MaxSessions, connections, memory. A caller is its principal
// (see Context.SetPrincipal, or the authentication middleware's caller);
// an anonymous caller is its client IP address, an IPv6 address counting
// for its /64 network, which one client usually controls whole. The
// address is the connection's peer (http.Request.RemoteAddr) unless the
// router is mounted on an Echo whose IPExtractor is set: behind a proxy,
// set one, or every anonymous caller shares the proxy's address.
//
// The counts are kept by the backplane when it can (backplane.Quotas, as
// Memory and redisbp do), so that every node sharing it counts the same
// holdings: on three nodes on one Redis a caller holds each limit once,
// not three times. A session counts while it exists, whichever node ends
// it; a stream counts while its node holds it open, and what a node that
// dies held stops counting within 30 s, as its entries run out unrenewed;
// a task counts for its TTL. While the backplane cannot count, what
// would be counted is refused as when it cannot store: 503 "retry
// shortly" for a session or a stream, an internal error for a task. Over
// a backplane without Quotas each node counts its own, and a deployment
// of n nodes lets a caller hold up to n times each limit. A caller over
// a limit is refused with 429 Too Many Requests and a JSON-RPC error
// saying which limit and how to free a slot.

// MaxSessionsPerPrincipal caps the sessions one caller holds (those it
// initialized and that have not ended); the next initialize answers 429.
// Default 100; 0 or less means no cap (only MaxSessions applies).
func MaxSessionsPerPrincipal(n int) RouterOption {
	return routerOption(func(r *Router) { r.quotas.Sessions = access.NewQuota(n) })
}

// MaxStreamsPerPrincipal caps the session-era GET streams one caller has
// open: standalone streams and resumed POST answers alike; the next GET
// answers 429. Default 100, one per session the caller may hold; 0 or
// less means no cap.
func MaxStreamsPerPrincipal(n int) RouterOption {
	return routerOption(func(r *Router) { r.quotas.Streams = access.NewQuota(n) })
}

// MaxListenersPerPrincipal caps the subscriptions/listen streams
// (2026-07-28) one caller has open; the next one answers 429. A client
// needs one, or a few with different filters. Default 16; 0 or less means
// no cap.
func MaxListenersPerPrincipal(n int) RouterOption {
	return routerOption(func(r *Router) { r.quotas.Listeners = access.NewQuota(n) })
}

// MaxTasksPerPrincipal caps the live tasks one caller holds: working,
// waiting for input, or ended and still readable for their TTL. The next
// task-augmented call answers -32000 naming the limit. Default 100; 0 or
// less means no cap.
func MaxTasksPerPrincipal(n int) RouterOption {
	return routerOption(func(r *Router) { r.cfg.taskLimits.Tasks = n })
}

// MaxTaskBytesPerPrincipal caps the bytes one caller's tasks keep on this
// node until they expire: results, errors and the questions they wait on.
// Unlike the other quotas it counts on each node, where the bytes are
// kept. A task whose result would pass it fails at once, with an error
// saying so, and keeps nothing else. Default 32 MiB; 0 or less means no
// cap.
func MaxTaskBytesPerPrincipal(n int64) RouterOption {
	return routerOption(func(r *Router) { r.cfg.taskLimits.Bytes = n })
}

// MaxTaskResultBytes caps what one task keeps: its result, or the
// questions it waits on while it needs input. A task over it fails at
// once with an error saying so. Default 4 MiB; 0 or less means no cap.
func MaxTaskResultBytes(n int64) RouterOption {
	return routerOption(func(r *Router) { r.cfg.taskLimits.Result = n })
}

// shareQuotas has the backplane count the per-caller quotas when it can
// (backplane.Quotas), so that every node sharing it counts the same
// holdings, and returns the counter; nil when each node counts its own.
func (r *Router) shareQuotas(node string) *access.Shared {
	q, ok := r.bp.(backplane.Quotas)
	if !ok {
		return nil
	}
	r.quotas.Shared = access.NewShared(access.SharedConfig{Quotas: q, Node: node, TTL: r.heldTTL, Context: r.streams.Context, Log: r.log})
	return r.quotas.Shared
}
