package specter

import (
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/session"
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
	EndClient   = session.EndClient   // the client sent DELETE
	EndTimeout  = session.EndTimeout  // idle longer than the session timeout
	EndShutdown = session.EndShutdown // the router shut down
	EndError    = session.EndError    // the session could not go on (its shared state was lost)
)

// onMessage handles what other nodes (and this one) publish.
func (r *Router) onMessage(m *backplane.Message) {
	switch m.Kind {
	case backplane.KindNotify:
		r.deliverNotify(m)
	case backplane.KindTask:
		r.tasks.Receive(m)
	case backplane.KindTopic:
		if r.onEvent != nil {
			r.deliverEvent(m)
		}
	default:
		r.sessions.Receive(m)
	}
}

// publish sends a message to every node, logging a backplane failure.
func (r *Router) publish(m *backplane.Message) {
	ctx, cancel := r.streams.Context()
	defer cancel()
	if err := r.bp.Publish(ctx, m); err != nil {
		r.log.Warn().Err(err).Str("kind", m.Kind).Msg("mcp backplane publish failed")
	}
}
