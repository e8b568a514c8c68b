package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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
	if !s.t.cfg.Local && !s.takeClaim(key) {
		ctx, done := s.t.cfg.Streams.Context()
		defer done()
		_, got, err := s.t.cfg.Backplane.Admit(ctx, s.id, s.t.cfg.Timeout, []string{key}, nil)
		if err != nil || !got[0] {
			return false
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[key]; dup || s.ended {
		return false
	}
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
// On a shared backplane the id's claim is given back with the session's
// next Admit on this node, in the same round trip.
func (s *Session) End(id jsonrpc.ID) (cancelled bool) {
	key := id.Key()
	s.mu.Lock()
	f, ok := s.inflight[key]
	delete(s.inflight, key)
	if ok && !s.t.cfg.Local {
		a := s.admission()
		a.released = append(a.released, key)
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	f.cancel()
	if f.release != nil {
		f.release()
	}
	s.Leave()
	return f.cancelled
}

// Admit readies the session for a POST of its owner, in one backplane
// call: the shared record lives for the timeout from now and is read back
// fresh, and on a shared backplane the ids of msgs' requests are claimed
// across nodes (for Begin) while the ids of requests ended here since the
// last call are given back. The session is marked used now.
func (s *Session) Admit(ctx context.Context, msgs []*jsonrpc.Message) error {
	if s.t.cfg.Local {
		return s.Extend(ctx)
	}
	var claims []string
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			claims = append(claims, m.ID.Key())
		}
	}
	s.mu.Lock()
	a := s.admission()
	release := a.released
	a.released = nil
	s.mu.Unlock()
	if len(claims) == 0 && len(release) == 0 && s.extendedWithin(s.t.cfg.Timeout/10) {
		// Nothing to claim or give back, and the record was extended a
		// moment ago (as initialize's notification finds it): no call.
		// Were the session ended on another node meanwhile, its end
		// message removed it here.
		s.Touch()
		return nil
	}
	rec, got, err := s.t.cfg.Backplane.Admit(ctx, s.id, s.t.cfg.Timeout, claims, release)
	if err != nil {
		s.mu.Lock()
		a.released = append(a.released, release...)
		s.mu.Unlock()
		return err
	}
	s.Refresh(rec)
	now := time.Now().UnixNano()
	s.lastActive.Store(now)
	s.extended.Store(now)
	s.mu.Lock()
	for i, k := range claims {
		if got[i] {
			if a.claimed == nil {
				a.claimed = map[string]struct{}{}
			}
			a.claimed[k] = struct{}{}
		}
	}
	s.mu.Unlock()
	return nil
}

// takeClaim reports whether Admit claimed key for a request not begun
// yet, and forgets the claim: Begin takes it over.
func (s *Session) takeClaim(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.adm == nil {
		return false
	}
	if _, ok := s.adm.claimed[key]; !ok {
		return false
	}
	delete(s.adm.claimed, key)
	return true
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
			a.released = append(a.released, m.ID.Key())
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
	released []string            // ids of requests ended here, for Admit to give back
}

// admission returns the session's admission, made on first use; s.mu held.
func (s *Session) admission() *admission {
	if s.adm == nil {
		s.adm = &admission{}
	}
	return s.adm
}
