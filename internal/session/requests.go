package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Begin registers an in-flight request id; cancel stops it. It fails for
// an id already in flight in the session, on any node: answers would be
// ambiguous.
func (s *Session) Begin(id jsonrpc.ID, cancel context.CancelFunc) bool {
	if !s.t.cfg.Local {
		// Other nodes may run requests of this session too.
		ctx, done := s.t.cfg.Streams.Context()
		defer done()
		if ok, err := s.t.cfg.Backplane.Claim(ctx, s.claimKey(id), 24*time.Hour); err != nil || !ok {
			return false
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[id.Key()]; dup || s.ended {
		return false
	}
	if s.inflight == nil {
		s.inflight = map[string]*inflight{}
	}
	s.inflight[id.Key()] = &inflight{cancel: cancel}
	s.busy.Add(1)
	return true
}

func (s *Session) claimKey(id jsonrpc.ID) string { return "req:" + s.id + ":" + id.Key() }

// End unregisters a request and reports whether the client cancelled it.
func (s *Session) End(id jsonrpc.ID) (cancelled bool) {
	s.mu.Lock()
	f, ok := s.inflight[id.Key()]
	delete(s.inflight, id.Key())
	s.mu.Unlock()
	if !ok {
		return false
	}
	if !s.t.cfg.Local {
		ctx, done := s.t.cfg.Streams.Context()
		defer done()
		_ = s.t.cfg.Backplane.Release(ctx, s.claimKey(id))
	}
	f.cancel()
	s.Leave()
	return f.cancelled
}

// Cancel cancels a request running here (notifications/cancelled) and
// reports whether it was found.
func (s *Session) Cancel(id jsonrpc.ID) bool {
	s.mu.Lock()
	f := s.inflight[id.Key()]
	if f != nil {
		f.cancelled = true
	}
	s.mu.Unlock()
	if f != nil {
		f.cancel()
	}
	return f != nil
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

// ErrNoAnswer and ErrEnded end an Ask the client did not answer: in time,
// or before the session ended.
var (
	ErrNoAnswer = errors.New("specter: the client did not answer in time")
	ErrEnded    = errors.New("specter: the session ended before the client answered")
)

// Ask sends the client a request through send and waits for its answer,
// for at most timeout and while ctx lasts. When it stops waiting it tells
// the client, through send, that it need not answer.
func (s *Session) Ask(ctx context.Context, send func([]byte), method string, params json.RawMessage, timeout time.Duration) (*jsonrpc.Message, error) {
	id, ch := s.Await()
	send(jsonrpc.AppendRequest(nil, id, method, params))
	t := time.NewTimer(timeout)
	defer t.Stop()
	var why error
	select {
	case m := <-ch:
		return m, nil
	case <-t.C:
		why = fmt.Errorf("%w: %s got no answer within %v", ErrNoAnswer, method, timeout)
	case <-ctx.Done():
		why = fmt.Errorf("specter: %s: %w", method, ctx.Err())
		if s.Context().Err() != nil {
			why = fmt.Errorf("%w: %s", ErrEnded, method)
		}
	}
	s.Forget(id)
	p, _ := json.Marshal(&mcp.CancelledParams{RequestID: json.RawMessage(id), Reason: "the server no longer waits for this answer"})
	send(jsonrpc.AppendRequest(nil, nil, mcp.NotificationCancelled, p))
	return nil, why
}
