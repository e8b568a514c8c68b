package backplane

import (
	"context"
	"time"
)

// Leases is what a backplane shared by many nodes offers so that a node
// that dies (a crash, kill -9, a lost machine) is noticed and its work
// taken over by another: each node holds a lease it renews while it
// lives, recorded with the work it runs; once a lease lapses, exactly one
// other node claims that work and ends it cleanly, so that nothing waits
// for a node that is gone. Implementations of Backplane that are shared
// between processes implement it too; the router finds it by a type
// assertion.
type Leases interface {
	// Heartbeat renews node's lease for ttl from now and records work,
	// the entries of what node runs now, replacing what was recorded.
	Heartbeat(ctx context.Context, node string, ttl time.Duration, work []string) error
	// TakeOver claims one node whose lease lapsed, for hold: no other
	// node claims it meanwhile, and if the taker dies too its claim
	// lapses in turn. It returns the node and the work it recorded, or
	// "" when no lease lapsed. An entry the claimant cannot end yet may
	// be left for a later claim by not calling Done.
	TakeOver(ctx context.Context, hold time.Duration) (node string, work []string, err error)
	// Done forgets node, whose work was ended (or, on a clean shutdown,
	// the node's own lease and work).
	Done(ctx context.Context, node string) error
	// Alive reports whether node holds a lease: it renews it, or it
	// lapsed and the node's recorded work was not ended yet (Done).
	// Work that node started too shortly before it died to be recorded
	// is ended by whoever finds it once node is not alive.
	Alive(ctx context.Context, node string) (bool, error)
}

var _ Leases = (*Memory)(nil)

// memLease is one node's lease in a Memory.
type memLease struct {
	expires time.Time
	work    []string
}

// Heartbeat implements Leases. Every node of a Memory is in one process,
// so none outlives the others; it is kept so that the takeover itself can
// be tested, and a node that stops renewing is taken over as on Redis.
func (m *Memory) Heartbeat(_ context.Context, node string, ttl time.Duration, work []string) error {
	m.leaseMu.Lock()
	defer m.leaseMu.Unlock()
	if m.leases == nil {
		m.leases = map[string]*memLease{}
	}
	m.leases[node] = &memLease{expires: m.now().Add(ttl), work: append([]string(nil), work...)}
	return nil
}

// TakeOver implements Leases.
func (m *Memory) TakeOver(_ context.Context, hold time.Duration) (string, []string, error) {
	m.leaseMu.Lock()
	defer m.leaseMu.Unlock()
	now := m.now()
	for node, l := range m.leases {
		if now.After(l.expires) {
			l.expires = now.Add(hold)
			return node, append([]string(nil), l.work...), nil
		}
	}
	return "", nil, nil
}

// Alive implements Leases.
func (m *Memory) Alive(_ context.Context, node string) (bool, error) {
	m.leaseMu.Lock()
	_, ok := m.leases[node]
	m.leaseMu.Unlock()
	return ok, nil
}

// Done implements Leases.
func (m *Memory) Done(_ context.Context, node string) error {
	m.leaseMu.Lock()
	delete(m.leases, node)
	m.leaseMu.Unlock()
	return nil
}
