package backplane

import (
	"context"
	"time"
)

// Quotas is what a backplane offers so that the router's per-caller
// quotas (specter.MaxSessionsPerPrincipal and the others) count what a
// caller holds on every node that shares it, not on each node apart. A
// quota is a set of entries under a key, a caller and what it counts
// ("streams principal:ada"); the router finds the interface by a type
// assertion and otherwise counts on each node.
//
// Two kinds of entries count:
//
//   - held things (a GET stream, a listen stream, a task): an entry
//     counts for a ttl that its node renews while it holds the thing, so
//     that what a node held stops counting soon after the node dies;
//   - sessions: an entry counts while its session exists, as
//     LoadSession sees it, so that a deleted or expired session frees
//     its slot without anyone letting it go.
type Quotas interface {
	// Hold adds entry to key's set for ttl, if the set holds fewer than
	// limit entries whose time has not run out (those are dropped). An
	// entry already there only gets the new ttl. It reports whether
	// entry is held.
	Hold(ctx context.Context, key, entry string, ttl time.Duration, limit int) (bool, error)
	// Renew gives the entries of key that are still held (not let go,
	// not run out) ttl more from now.
	Renew(ctx context.Context, key string, entries []string, ttl time.Duration) error
	// Unhold lets entry of key go.
	Unhold(ctx context.Context, key, entry string) error
	// HoldSession adds session id, which exists, to key's set of
	// sessions, if fewer than limit of the sessions there still exist. It
	// reports whether id is held.
	HoldSession(ctx context.Context, key, id string, limit int) (bool, error)
}

var _ Quotas = (*Memory)(nil)

// memQuota is one key's entries in a Memory: held things with the time
// they run out, or sessions.
type memQuota map[string]memEntry

type memEntry struct {
	until   time.Time
	session bool
}

// counts reports whether e still counts at now.
func (m *Memory) counts(id string, e memEntry, now time.Time) bool {
	if e.session {
		return m.exists(id)
	}
	return now.Before(e.until)
}

// Hold implements Quotas.
func (m *Memory) Hold(_ context.Context, key, entry string, ttl time.Duration, limit int) (bool, error) {
	m.quotaMu.Lock()
	defer m.quotaMu.Unlock()
	now := m.now()
	q := m.quota(key)
	for e, v := range q {
		if !m.counts(e, v, now) {
			delete(q, e)
		}
	}
	if _, ok := q[entry]; !ok && len(q) >= limit {
		return false, nil
	}
	q[entry] = memEntry{until: now.Add(ttl)}
	return true, nil
}

// Renew implements Quotas.
func (m *Memory) Renew(_ context.Context, key string, entries []string, ttl time.Duration) error {
	m.quotaMu.Lock()
	defer m.quotaMu.Unlock()
	now := m.now()
	q := m.quotas[key]
	for _, e := range entries {
		if v, ok := q[e]; ok && now.Before(v.until) {
			q[e] = memEntry{until: now.Add(ttl)}
		}
	}
	return nil
}

// Unhold implements Quotas.
func (m *Memory) Unhold(_ context.Context, key, entry string) error {
	m.quotaMu.Lock()
	defer m.quotaMu.Unlock()
	if q, ok := m.quotas[key]; ok {
		delete(q, entry)
		if len(q) == 0 {
			delete(m.quotas, key)
		}
	}
	return nil
}

// HoldSession implements Quotas.
func (m *Memory) HoldSession(_ context.Context, key, id string, limit int) (bool, error) {
	m.quotaMu.Lock()
	defer m.quotaMu.Unlock()
	now := m.now()
	q := m.quota(key)
	if _, ok := q[id]; !ok && len(q) >= limit {
		for s, v := range q {
			if !m.counts(s, v, now) {
				delete(q, s)
			}
		}
		if len(q) >= limit {
			return false, nil
		}
	}
	q[id] = memEntry{session: true}
	return true, nil
}

// quota returns key's set, made if need be; quotaMu is held. The sets of
// callers that hold nothing any more go now and then, at a cost spread
// over the sets that grew the map.
func (m *Memory) quota(key string) memQuota {
	if q, ok := m.quotas[key]; ok {
		return q
	}
	if m.quotas == nil {
		m.quotas = map[string]memQuota{}
	}
	if len(m.quotas) >= m.quotaAt {
		now := m.now()
		for k, q := range m.quotas {
			for e, v := range q {
				if !m.counts(e, v, now) {
					delete(q, e)
				}
			}
			if len(q) == 0 {
				delete(m.quotas, k)
			}
		}
		m.quotaAt = max(1024, 2*len(m.quotas))
	}
	q := memQuota{}
	m.quotas[key] = q
	return q
}

// exists reports whether session id exists.
func (m *Memory) exists(id string) bool {
	sh := m.shard(id)
	defer sh.mu.Unlock()
	return m.live(sh, id) != nil
}
