package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/lease"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// What Ask's error wraps when no answer came.
var (
	ErrInputTimeout = errors.New("specter: the client did not answer in time")
	ErrEnded        = errors.New("specter: the session ended before the client answered")
)

// Ask sends the client a request on ob and waits for its answer, for
// timeout (an error wrapping ErrInputTimeout), or for ctx to end (one
// wrapping ErrEnded when the session ended). When it stops waiting it
// tells the client it need not answer.
func (s *Session) Ask(ctx context.Context, ob *stream.Stream, method string, params []byte, timeout time.Duration) (*jsonrpc.Message, error) {
	id, ch := s.Await()
	ob.Send(jsonrpc.AppendRequest(nil, id, method, params), false)
	wait := time.NewTimer(timeout)
	defer wait.Stop()
	var why error
	select {
	case m := <-ch:
		return m, nil
	case <-wait.C:
		why = fmt.Errorf("%w: %s got no answer within %v", ErrInputTimeout, method, timeout)
	case <-ctx.Done():
		why = fmt.Errorf("specter: %s: %w", method, ctx.Err())
		if s.ctx.Err() != nil {
			why = fmt.Errorf("%w: %s", ErrEnded, method)
		}
	}
	s.Forget(id)
	p, _ := json.Marshal(&mcp.CancelledParams{RequestID: json.RawMessage(id), Reason: "the server no longer waits for this answer"})
	ob.Send(jsonrpc.AppendRequest(nil, nil, mcp.NotificationCancelled, p), false)
	return nil, why
}

// Begin registers an in-flight request id; cancel stops it. It fails for
// an id already in flight in the session, on any node: answers would be
// ambiguous. On a shared backplane Admit has usually claimed the id
// already; otherwise Begin claims it.
func (s *Session) Begin(id jsonrpc.ID, cancel context.CancelFunc) bool {
	key := id.Key()
	shared := !s.t.cfg.Local
	if shared && !s.takeClaim(key) {
		ctx, done := s.t.cfg.Streams.Context()
		defer done()
		_, got, err := s.t.cfg.Backplane.ClaimRequests(ctx, s.id, []string{key}, nil)
		if err != nil || !got[0] {
			return false
		}
	}
	s.mu.Lock()
	if _, dup := s.inflight[key]; dup {
		s.mu.Unlock()
		return false // held here, so not claimed by this call
	}
	if s.ended {
		s.mu.Unlock()
		if shared {
			s.giveBack([]string{key}) // the claim would outlive the session here
		}
		return false
	}
	defer s.mu.Unlock()
	if s.inflight == nil {
		s.inflight = map[string]inflight{}
	}
	s.inflight[key] = inflight{cancel: cancel}
	s.busy.Add(1)
	return true
}

// Hold records request id, answered on stream, as work of this node on
// the backplane until End, so that another node ends it with an error if
// this one dies meanwhile.
func (s *Session) Hold(id jsonrpc.ID, stream string) {
	if s.t.cfg.Hold == nil {
		return
	}
	key := id.Key()
	release := s.t.cfg.Hold(lease.Request(s.id, stream, string(id)))
	s.mu.Lock()
	f, ok := s.inflight[key]
	if ok {
		f.release = release
		s.inflight[key] = f
	}
	s.mu.Unlock()
	if !ok {
		release() // it ended already
	}
}

// End unregisters a request and reports whether the client cancelled it.
// On a shared backplane this node keeps the id's claim, for a request of
// the same id here to take over at once, and gives it back with a later
// Admit (see Admit), or at once when this node's side of the session
// ended already.
func (s *Session) End(id jsonrpc.ID) (cancelled bool) {
	key := id.Key()
	s.mu.Lock()
	f, ok := s.inflight[key]
	delete(s.inflight, key)
	giveBack := false
	if ok && !s.t.cfg.Local {
		if s.ended {
			giveBack = true
		} else {
			s.admission().ended(key)
		}
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	f.cancel()
	if f.release != nil {
		f.release()
	}
	if giveBack {
		s.giveBack([]string{key})
	}
	s.Leave()
	return f.cancelled
}

// Admit readies the session for a POST of its owner: on an in-process
// backplane it extends the record's life (Extend); on a shared one it
// checks, in one backplane call, that the session still exists and that
// this node's copy of it is current, and claims the ids of msgs' requests
// across nodes (for Begin). The session is marked used now.
//
// A steady stream of requests costs the backplane little: the record's
// life is extended, and read back whole, once per extendEvery
// (Backplane.Admit); in between ClaimRequests only claims and reads the
// record's revision, and the record is read back when the revision shows
// that another node changed it. The claims of requests that ended here
// go back with the extension, or once maxPending of them wait; meanwhile
// a request of the same id here takes its claim over.
func (s *Session) Admit(ctx context.Context, msgs []*jsonrpc.Message) error {
	if s.t.cfg.Local {
		return s.Extend(ctx)
	}
	requests := 0
	var claims, reclaimed []string
	s.mu.Lock()
	a := s.admission()
	for _, m := range msgs {
		if m.Kind() != jsonrpc.KindRequest {
			continue
		}
		requests++
		if k := m.ID.Key(); a.reclaim(k) {
			reclaimed = append(reclaimed, k)
		} else {
			claims = append(claims, k)
		}
	}
	extend := !s.extendedWithin(s.t.extendEvery())
	var release []string
	if extend || len(a.released) >= maxPending {
		release = a.drain()
	}
	s.mu.Unlock()
	if requests == 0 && len(release) == 0 && s.extendedWithin(s.t.cfg.Timeout/10) {
		// No request, nothing to give back, and the record was extended
		// a moment ago (as initialize's notification finds it): no call.
		// Were the session ended on another node meanwhile, its end
		// message removed it here.
		s.Touch()
		return nil
	}
	var (
		got []bool
		err error
	)
	if extend {
		var rec *backplane.Session
		before := s.changeCount()
		if rec, got, err = s.t.cfg.Backplane.Admit(ctx, s.id, s.t.cfg.Timeout, claims, release); err == nil {
			s.refresh(rec, before)
			now := time.Now().UnixNano()
			s.lastActive.Store(now)
			s.extended.Store(now)
		}
	} else {
		var rev uint64
		if rev, got, err = s.t.cfg.Backplane.ClaimRequests(ctx, s.id, claims, release); err == nil {
			release = nil // given back
			if rev != s.rev.Load() {
				// Another node changed the session; its messages saying
				// how may not have arrived yet.
				err = s.reload(ctx)
			}
			s.Touch()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		// The requests are refused: what they took or left goes back.
		a.ended(release...)
		a.ended(reclaimed...)
		for i, k := range claims {
			if i < len(got) && got[i] {
				a.ended(k)
			}
		}
		for _, k := range reclaimed {
			delete(a.claimed, k)
		}
		return err
	}
	for i, k := range claims {
		if got[i] {
			a.take(k)
		}
	}
	return nil
}

// reload reads the record back and takes it (see refresh), trying again
// a few times while changes come in meanwhile.
func (s *Session) reload(ctx context.Context) error {
	for range 3 {
		before := s.changeCount()
		rec, err := s.t.cfg.Backplane.LoadSession(ctx, s.id)
		if err != nil {
			return err
		}
		if s.refresh(rec, before) {
			return nil
		}
	}
	return nil
}

// takeClaim reports whether this node holds the claim of key for a
// request not begun yet (Admit claimed it, or a request of the same id
// ended here), and forgets the claim: Begin takes it over.
func (s *Session) takeClaim(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.adm == nil {
		return false
	}
	if _, ok := s.adm.claimed[key]; ok {
		delete(s.adm.claimed, key)
		return true
	}
	return s.adm.reuse(key)
}

// Unclaim gives back the claims Admit took for msgs' requests that did
// not begin (a batch's requests over the rate limit): their ids are free
// to use again.
func (s *Session) Unclaim(msgs []*jsonrpc.Message) {
	if s.t.cfg.Local {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.admission()
	for _, m := range msgs {
		if _, ok := a.claimed[m.ID.Key()]; ok && m.Kind() == jsonrpc.KindRequest {
			delete(a.claimed, m.ID.Key())
			a.ended(m.ID.Key())
		}
	}
}

// Cancel cancels a request running here (notifications/cancelled) and
// reports whether it was found.
func (s *Session) Cancel(id jsonrpc.ID) bool {
	key := id.Key()
	s.mu.Lock()
	f, ok := s.inflight[key]
	if ok {
		f.cancelled = true
		s.inflight[key] = f
	}
	s.mu.Unlock()
	if ok {
		f.cancel()
	}
	return ok
}

// Await registers a server->client request id and returns where its
// answer will arrive (see Deliver); Forget gives up on it.
func (s *Session) Await() (jsonrpc.ID, <-chan *jsonrpc.Message) {
	id := jsonrpc.StringID(s.t.uniqueID("s"))
	ch := make(chan *jsonrpc.Message, 1)
	s.mu.Lock()
	if s.waiting == nil {
		s.waiting = map[string]chan *jsonrpc.Message{}
	}
	s.waiting[id.Key()] = ch
	s.mu.Unlock()
	return id, ch
}

// Forget gives up on a server->client request.
func (s *Session) Forget(id jsonrpc.ID) {
	s.mu.Lock()
	delete(s.waiting, id.Key())
	s.mu.Unlock()
}

// Deliver routes a client's answer to the request waiting for it here and
// reports whether one was.
func (s *Session) Deliver(m *jsonrpc.Message) bool {
	s.mu.Lock()
	ch, ok := s.waiting[m.ID.Key()]
	delete(s.waiting, m.ID.Key())
	s.mu.Unlock()
	if ok {
		ch <- m
	}
	return ok
}

// extendedWithin reports whether the shared record was extended less than
// d ago.
func (s *Session) extendedWithin(d time.Duration) bool {
	return time.Now().UnixNano()-s.extended.Load() < int64(d)
}

// admission is what a session on a shared backplane keeps between Admits;
// a session on an in-process backplane has none.
type admission struct {
	claimed  map[string]struct{} // request ids Admit claimed, not begun yet
	released map[string]struct{} // ids of requests ended here, still claimed, for Admit to give back
}

// maxPending is how many claims of ended requests a session keeps before
// Admit gives them back without waiting for the next extension.
const maxPending = 512

// take notes that Admit claimed key.
func (a *admission) take(key string) {
	if a.claimed == nil {
		a.claimed = map[string]struct{}{}
	}
	a.claimed[key] = struct{}{}
}

// ended notes that the requests of keys ended, their claims still held.
func (a *admission) ended(keys ...string) {
	if a.released == nil && len(keys) > 0 {
		a.released = map[string]struct{}{}
	}
	for _, k := range keys {
		a.released[k] = struct{}{}
	}
}

// drain returns the claims to give back and forgets them.
func (a *admission) drain() []string {
	if len(a.released) == 0 {
		return nil
	}
	keys := slices.Collect(maps.Keys(a.released))
	a.released = nil
	return keys
}

// reuse takes the claim of an ended request of id key, which this node
// still holds, off the ids to give back, and reports whether there was
// one.
func (a *admission) reuse(key string) bool {
	if _, ok := a.released[key]; !ok {
		return false
	}
	delete(a.released, key)
	return true
}

// reclaim has Admit take over the claim of an ended request of id key,
// as reuse, for a request not begun yet.
func (a *admission) reclaim(key string) bool {
	if !a.reuse(key) {
		return false
	}
	a.take(key)
	return true
}

// extendEvery is how often, at most, Admit extends the shared life of a
// session in use on a shared backplane and reads it back whole: once a
// second, or every tenth of the timeout if that is shorter. A session
// may so end up to that much before its timeout after its last request.
func (t *Table) extendEvery() time.Duration {
	every := time.Second
	if d := t.cfg.Timeout; d > 0 {
		every = min(every, d/10)
	}
	return every
}

// letGo ends this node's side of the session (Stop) and gives back the
// claims this node still holds in it: of requests that ended here, and
// of requests Admit claimed that never began. It reports whether it was
// the call that stopped the session.
func (s *Session) letGo() bool {
	if !s.Stop() {
		return false
	}
	if s.t.cfg.Local {
		return true
	}
	s.mu.Lock()
	var keys []string
	if s.adm != nil {
		keys = append(s.adm.drain(), slices.Collect(maps.Keys(s.adm.claimed))...)
		s.adm = nil
	}
	s.mu.Unlock()
	if len(keys) > 0 {
		s.giveBack(keys)
	}
	return true
}

// giveBack gives back the claims of keys, in a session this node let go
// of: on a session that ended the backplane deletes them, or they would
// be left behind without a TTL.
func (s *Session) giveBack(keys []string) {
	ctx, cancel := s.t.cfg.Streams.Context()
	defer cancel()
	if _, _, err := s.t.cfg.Backplane.ClaimRequests(ctx, s.id, nil, keys); err != nil && !errors.Is(err, backplane.ErrNotFound) {
		s.t.cfg.Log.Warn().Err(err).Str("session", s.id).Msg("mcp session: request ids could not be given back")
	}
}

// admission returns the session's admission, made on first use; s.mu held.
func (s *Session) admission() *admission {
	if s.adm == nil {
		s.adm = &admission{}
	}
	return s.adm
}
