package specter

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
)

// Backplane sets what the nodes of a deployment share: sessions, stream
// buffers, in-flight ids and messages between nodes. Default: an
// in-memory backplane for one process. With a shared one (redisbp.New),
// several processes behind a load balancer are one server to every
// client: a session created on one node works on another, a dropped
// client resumes anywhere, notifications and answers to server requests
// reach the node that needs them. Give every node the same StateKey too.
func Backplane(bp backplane.Backplane) RouterOption {
	return routerOption(func(r *Router) { r.bp = bp })
}

// OnSessionStart runs when initialize creates a session, after connect,
// before the client gets its session id: it may find or create the
// application's data for the session (keyed by s.ID() or c.Principal())
// with s.Set. An error refuses the initialize with an internal error.
func OnSessionStart(f func(c *Context, s *Session) error) RouterOption {
	return routerOption(func(r *Router) { r.onStart = f })
}

// OnTerminate runs once when a session ends, on the node that ends it,
// with the reason (EndClient, EndTimeout, EndShutdown, EndError) and the
// session's data as it was.
func OnTerminate(f func(reason string, s *Session)) RouterOption {
	return routerOption(func(r *Router) { r.onTerminate = f })
}

// Why a session ended, as OnTerminate is told.
const (
	EndClient   = "client"   // the client sent DELETE
	EndTimeout  = "timeout"  // idle longer than the session timeout
	EndShutdown = "shutdown" // the router shut down
	EndError    = "error"    // the session could not go on (its shared state was lost)
)

// bpContext bounds one backplane call (see stream.Node.Context).
func (r *Router) bpContext() (context.Context, context.CancelFunc) { return r.streams.Context() }

// lookup finds a session for a request: this node's copy, refreshed from
// the backplane (another node may have changed or ended it). It does not
// touch the session: only its owner's requests do (see touch).
func (r *Router) lookup(ctx context.Context, id string) (*session.Session, error) {
	if !session.ValidID(id) {
		// Ids this server never issues are unknown without asking the
		// backplane, where they would become key names.
		return nil, backplane.ErrNotFound
	}
	if s := r.sessions.Get(id); s != nil && r.local {
		return s, nil // a single-process backplane changes only through this node
	}
	ctx, cancel := context.WithTimeout(ctx, stream.CallTimeout)
	defer cancel()
	rec, err := r.bp.LoadSession(ctx, id)
	if err != nil {
		if s := r.sessions.Get(id); s != nil && errors.Is(err, backplane.ErrNotFound) {
			s.Stop()
		}
		return nil, err
	}
	s := r.sessions.Get(id)
	if s == nil {
		s = r.sessions.Add(rec)
		s.WatchIdle()
	}
	s.Refresh(rec)
	return s, nil
}

// touch keeps a session alive for its owner's request. A record that
// expired meanwhile ends the session.
func (r *Router) touch(ctx context.Context, s *session.Session) error {
	if !r.local {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, stream.CallTimeout)
		defer cancel()
	}
	err := s.Extend(ctx)
	if errors.Is(err, backplane.ErrNotFound) && r.local {
		r.finish(s, EndTimeout)
	}
	return err
}

// writeLookupError answers a request whose session could not be found.
func writeLookupError(w http.ResponseWriter, id jsonrpc.ID, err error) {
	if errors.Is(err, backplane.ErrNotFound) {
		refusal.Write(w, id, refusal.SessionNotFound)
		return
	}
	refusal.Write(w, id, refusal.StorageUnavailable)
}

// endSession ends a session for every node: its record goes, every node
// drops its live state, and OnTerminate runs here once.
func (r *Router) endSession(s *session.Session, reason string) error {
	ctx, cancel := r.bpContext()
	defer cancel()
	existed, err := r.bp.DeleteSession(ctx, s.ID())
	if err != nil {
		return err
	}
	_ = r.bp.Publish(ctx, &backplane.Message{Kind: backplane.KindEnd, Session: s.ID()})
	s.Stop()
	if existed {
		r.terminated(s, reason)
	}
	return nil
}

// finish ends a session whose record already expired. OnTerminate runs
// once: on the one node of an in-process backplane, or on the node that
// claims the end of a shared one.
func (r *Router) finish(s *session.Session, reason string) {
	if !s.Stop() {
		return
	}
	if !r.local {
		ctx, cancel := r.bpContext()
		defer cancel()
		if ok, err := r.bp.Claim(ctx, "end:"+s.ID(), time.Hour); err != nil || !ok {
			return
		}
	}
	r.terminated(s, reason)
}

func (r *Router) terminated(s *session.Session, reason string) {
	r.log.Debug().Str("session", s.ID()).Str("reason", reason).Msg("mcp session ended")
	if r.onTerminate != nil {
		r.onTerminate(reason, &Session{s: s})
	}
}

// onMessage handles what other nodes (and this one) publish.
func (r *Router) onMessage(m *backplane.Message) {
	if m.Kind == backplane.KindNotify {
		r.deliverNotify(m)
		return
	}
	r.sessions.Receive(m)
}

// publish sends a message to every node, logging a backplane failure.
func (r *Router) publish(m *backplane.Message) {
	ctx, cancel := r.bpContext()
	defer cancel()
	if err := r.bp.Publish(ctx, m); err != nil {
		r.log.Warn().Err(err).Str("kind", m.Kind).Msg("mcp backplane publish failed")
	}
}
