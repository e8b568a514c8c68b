package backplane

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"time"
)

// Memory is the in-process backplane: everything lives in this process's
// memory, and messages go to this process only.
//
// Every session-era request touches its session's record, so the sessions
// are spread over shards with a lock each: requests of different sessions
// do not wait for one another, however many cores serve them.
type Memory struct {
	seed   maphash.Seed
	shards [memShards]memShard

	claimMu sync.Mutex
	claims  map[string]time.Time
	sweepAt int // claims count at which expired claims are swept

	taskMu sync.Mutex
	tasks  map[string]*Task
	owned  map[string]map[string]struct{} // task ids by owner
	taskAt int                            // tasks count at which expired tasks are swept

	subMu   sync.Mutex
	subs    map[int]func(*Message)
	nextSub int

	leaseMu sync.Mutex
	leases  map[string]*memLease // by node

	quotaMu sync.Mutex
	quotas  map[string]memQuota // by key (quota.go)
	quotaAt int                 // quotas count at which sets holding nothing are swept

	now func() time.Time
}

// memShards is the number of session shards: enough that the cores of a
// large machine rarely meet on one.
const memShards = 64

// memShard holds the sessions whose id hashes to it, padded to a cache
// line of its own so that shards in use on different cores do not share
// one.
type memShard struct {
	mu       sync.Mutex
	sessions map[string]*memSession
	_        [64 - 16]byte
}

// shard returns the shard of session id, locked; the caller unlocks it.
func (m *Memory) shard(id string) *memShard {
	sh := &m.shards[maphash.String(m.seed, id)%memShards]
	sh.mu.Lock()
	return sh
}

type memSession struct {
	s        Session
	expires  time.Time // zero: never
	streams  map[string]*memStream
	requests map[string]struct{} // request keys held (Admit)
}

type memStream struct {
	events []Event
	size   int
	lost   uint64 // highest Seq dropped
}

// NewMemory returns an empty in-memory backplane.
func NewMemory() *Memory {
	m := &Memory{seed: maphash.MakeSeed(), claims: map[string]time.Time{}, tasks: map[string]*Task{},
		owned: map[string]map[string]struct{}{}, subs: map[int]func(*Message){}, now: time.Now}
	for i := range m.shards {
		m.shards[i].sessions = map[string]*memSession{}
	}
	return m
}

// live returns the unexpired session id of sh, which is locked.
func (m *Memory) live(sh *memShard, id string) *memSession {
	ms := sh.sessions[id]
	if ms == nil {
		return nil
	}
	if !ms.expires.IsZero() && m.now().After(ms.expires) {
		sh.forget(id)
		return nil
	}
	return ms
}

// forget deletes a session. Maps keep their peak size, so an emptied one
// is replaced to give the memory back.
func (sh *memShard) forget(id string) {
	delete(sh.sessions, id)
	if len(sh.sessions) == 0 {
		sh.sessions = map[string]*memSession{}
	}
}

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

// CreateSession implements Backplane.
func (m *Memory) CreateSession(_ context.Context, s *Session, ttl time.Duration) error {
	c := *s
	c.Data = copyData(s.Data)
	c.Revision = 0
	ms := &memSession{s: c, expires: expiry(m.now(), ttl)}
	sh := m.shard(s.ID)
	defer sh.mu.Unlock()
	sh.sessions[s.ID] = ms
	return nil
}

func copyData(d map[string]json.RawMessage) map[string]json.RawMessage {
	if d == nil {
		return nil
	}
	c := make(map[string]json.RawMessage, len(d))
	for k, v := range d {
		c[k] = v
	}
	return c
}

// LoadSession implements Backplane.
func (m *Memory) LoadSession(_ context.Context, id string) (*Session, error) {
	sh := m.shard(id)
	defer sh.mu.Unlock()
	ms := m.live(sh, id)
	if ms == nil {
		return nil, ErrNotFound
	}
	return ms.copy(), nil
}

// copy returns a copy of the session record that shares nothing with it.
func (ms *memSession) copy() *Session {
	c := ms.s
	c.Data = copyData(ms.s.Data)
	c.Subscriptions = append([]string(nil), ms.s.Subscriptions...)
	c.Topics = append([]string(nil), ms.s.Topics...)
	return &c
}

// TouchSession implements Backplane.
func (m *Memory) TouchSession(_ context.Context, id string, ttl time.Duration) error {
	sh := m.shard(id)
	defer sh.mu.Unlock()
	ms := m.live(sh, id)
	if ms == nil {
		return ErrNotFound
	}
	ms.expires = expiry(m.now(), ttl)
	return nil
}

// SetField implements Backplane.
func (m *Memory) SetField(_ context.Context, id, field string, value json.RawMessage) error {
	sh := m.shard(id)
	defer sh.mu.Unlock()
	ms := m.live(sh, id)
	if ms == nil {
		return ErrNotFound
	}
	if err := applyField(&ms.s, field, value); err != nil {
		return err
	}
	ms.s.Revision++
	return nil
}

// SetMember implements Backplane.
func (m *Memory) SetMember(_ context.Context, id, field, member string, on bool, limit int) error {
	sh := m.shard(id)
	defer sh.mu.Unlock()
	ms := m.live(sh, id)
	if ms == nil {
		return ErrNotFound
	}
	var set *[]string
	switch field {
	case FieldSubscriptions:
		set = &ms.s.Subscriptions
	case FieldTopics:
		set = &ms.s.Topics
	default:
		return fmt.Errorf("backplane: %q is not a set of the session", field)
	}
	i := slices.Index(*set, member)
	switch {
	case !on && i >= 0:
		*set = slices.Delete(*set, i, i+1)
	case !on, i >= 0:
		return nil // no change
	case limit > 0 && len(*set) >= limit:
		return ErrTooMany
	default:
		*set = append(*set, member)
	}
	ms.s.Revision++
	return nil
}

// applyField sets a field of s from its JSON value.
func applyField(s *Session, field string, value json.RawMessage) error {
	switch {
	case field == FieldLogLevel:
		return json.Unmarshal(value, &s.LogLevel)
	case strings.HasPrefix(field, dataPrefix):
		if s.Data == nil {
			s.Data = map[string]json.RawMessage{}
		}
		s.Data[field[len(dataPrefix):]] = append(json.RawMessage(nil), value...)
		return nil
	}
	return fmt.Errorf("backplane: unknown session field %q", field)
}

// DeleteSession implements Backplane.
func (m *Memory) DeleteSession(_ context.Context, id string) (bool, error) {
	sh := m.shard(id)
	defer sh.mu.Unlock()
	_, ok := sh.sessions[id]
	sh.forget(id)
	return ok, nil
}

// Append implements Backplane.
func (m *Memory) Append(_ context.Context, session, stream string, ev Event, limit int) error {
	sh := m.shard(session)
	defer sh.mu.Unlock()
	ms := m.live(sh, session)
	if ms == nil {
		return ErrNotFound
	}
	if ms.streams == nil {
		ms.streams = map[string]*memStream{}
	}
	st := ms.streams[stream]
	if st == nil {
		st = &memStream{}
		ms.streams[stream] = st
	}
	ev.Data = append([]byte(nil), ev.Data...)
	st.events = append(st.events, ev)
	st.size += len(ev.Data)
	for limit > 0 && st.size > limit && len(st.events) > 1 {
		st.size -= len(st.events[0].Data)
		st.lost = st.events[0].Seq
		st.events[0] = Event{}
		st.events = st.events[1:]
	}
	return nil
}

// Events implements Backplane.
func (m *Memory) Events(_ context.Context, session, stream string, after uint64) ([]Event, bool, error) {
	sh := m.shard(session)
	defer sh.mu.Unlock()
	ms := m.live(sh, session)
	if ms == nil {
		return nil, false, ErrNotFound
	}
	st := ms.streams[stream]
	if st == nil {
		return nil, false, ErrNotFound
	}
	var out []Event
	for _, ev := range st.events {
		if ev.Seq > after {
			out = append(out, ev)
		}
	}
	return out, st.lost > after, nil
}

// Head implements Backplane.
func (m *Memory) Head(_ context.Context, session, stream string) (Event, error) {
	sh := m.shard(session)
	defer sh.mu.Unlock()
	ms := m.live(sh, session)
	if ms == nil || ms.streams[stream] == nil {
		return Event{}, ErrNotFound
	}
	ev := ms.streams[stream].events[0]
	ev.Data = append([]byte(nil), ev.Data...)
	return ev, nil
}

// DropStream implements Backplane.
func (m *Memory) DropStream(_ context.Context, session, stream string) error {
	sh := m.shard(session)
	defer sh.mu.Unlock()
	if ms := m.live(sh, session); ms != nil {
		delete(ms.streams, stream)
	}
	return nil
}

// Claim implements Backplane.
func (m *Memory) Claim(_ context.Context, key string, ttl time.Duration) (bool, error) {
	m.claimMu.Lock()
	defer m.claimMu.Unlock()
	now := m.now()
	if exp, ok := m.claims[key]; ok && now.Before(exp) {
		return false, nil
	}
	if len(m.claims) >= m.sweepAt {
		// Claims that expired without a Release go now and then, at a
		// cost spread over the claims that grew the map.
		for k, exp := range m.claims {
			if !now.Before(exp) {
				delete(m.claims, k)
			}
		}
		m.sweepAt = max(1024, 2*len(m.claims))
	}
	m.claims[key] = now.Add(ttl)
	return true, nil
}

// Release implements Backplane.
func (m *Memory) Release(_ context.Context, key string) error {
	m.claimMu.Lock()
	delete(m.claims, key)
	if len(m.claims) == 0 {
		m.claims = map[string]time.Time{}
	}
	m.claimMu.Unlock()
	return nil
}

// PutTask implements Backplane.
func (m *Memory) PutTask(_ context.Context, t *Task) (bool, error) {
	m.taskMu.Lock()
	defer m.taskMu.Unlock()
	now := m.now()
	if old := m.tasks[t.ID]; old != nil && old.Final && now.Before(old.Expires) {
		return false, nil
	}
	if len(m.tasks) >= m.taskAt {
		for id, old := range m.tasks {
			if !now.Before(old.Expires) {
				m.dropTask(id)
			}
		}
		m.taskAt = max(1024, 2*len(m.tasks))
	}
	c := *t
	m.tasks[t.ID] = &c
	if t.Unlisted {
		return true, nil
	}
	if m.owned[t.Owner] == nil {
		m.owned[t.Owner] = map[string]struct{}{}
	}
	m.owned[t.Owner][t.ID] = struct{}{}
	return true, nil
}

func (m *Memory) dropTask(id string) {
	if t := m.tasks[id]; t != nil {
		delete(m.owned[t.Owner], id)
		if len(m.owned[t.Owner]) == 0 {
			delete(m.owned, t.Owner)
		}
	}
	delete(m.tasks, id)
}

// LoadTask implements Backplane.
func (m *Memory) LoadTask(_ context.Context, id string) (*Task, error) {
	m.taskMu.Lock()
	defer m.taskMu.Unlock()
	t := m.tasks[id]
	if t == nil || !m.now().Before(t.Expires) {
		m.dropTask(id)
		return nil, ErrNotFound
	}
	c := *t
	return &c, nil
}

// ListTasks implements Backplane.
func (m *Memory) ListTasks(_ context.Context, owner string) ([]*Task, error) {
	m.taskMu.Lock()
	defer m.taskMu.Unlock()
	now := m.now()
	out := make([]*Task, 0, len(m.owned[owner]))
	for id := range m.owned[owner] {
		if t := m.tasks[id]; now.Before(t.Expires) {
			c := *t
			out = append(out, &c)
		}
	}
	slices.SortFunc(out, func(a, b *Task) int { return cmp.Or(a.Expires.Compare(b.Expires), strings.Compare(a.ID, b.ID)) })
	return out, nil
}

// Admit implements Backplane.
func (m *Memory) Admit(_ context.Context, id string, ttl time.Duration, claims, release []string) (*Session, []bool, error) {
	sh := m.shard(id)
	defer sh.mu.Unlock()
	ms := m.live(sh, id)
	if ms == nil {
		return nil, nil, ErrNotFound
	}
	ms.expires = expiry(m.now(), ttl)
	return ms.copy(), ms.claim(claims, release), nil
}

// ClaimRequests implements Backplane.
func (m *Memory) ClaimRequests(_ context.Context, id string, claims, release []string) (uint64, []bool, error) {
	sh := m.shard(id)
	defer sh.mu.Unlock()
	ms := m.live(sh, id)
	if ms == nil {
		return 0, nil, ErrNotFound
	}
	return ms.s.Revision, ms.claim(claims, release), nil
}

// claim gives back the request keys of release and claims those of
// claims, reporting which it got; the shard is locked.
func (ms *memSession) claim(claims, release []string) []bool {
	for _, k := range release {
		delete(ms.requests, k)
	}
	got := make([]bool, len(claims))
	for i, k := range claims {
		if _, held := ms.requests[k]; !held {
			if ms.requests == nil {
				ms.requests = map[string]struct{}{}
			}
			ms.requests[k] = struct{}{}
			got[i] = true
		}
	}
	return got
}

// Publish implements Backplane: subscribers of this process get m at once.
func (m *Memory) Publish(_ context.Context, msg *Message) error {
	m.subMu.Lock()
	handlers := make([]func(*Message), 0, len(m.subs))
	for _, h := range m.subs {
		handlers = append(handlers, h)
	}
	m.subMu.Unlock()
	for _, h := range handlers {
		h(msg)
	}
	return nil
}

// Subscribe implements Backplane.
func (m *Memory) Subscribe(handle func(*Message)) (func(), error) {
	m.subMu.Lock()
	defer m.subMu.Unlock()
	id := m.nextSub
	m.nextSub++
	m.subs[id] = handle
	return func() {
		m.subMu.Lock()
		delete(m.subs, id)
		m.subMu.Unlock()
	}, nil
}

// Sharing implements Backplane: a Memory is InProcess.
func (m *Memory) Sharing() Sharing { return InProcess }

// Close implements Backplane.
func (m *Memory) Close() error { return nil }

var _ Backplane = (*Memory)(nil)
