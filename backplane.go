package specter

import (
	"github.com/specter-mcp/specter/backplane"
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

// onMessage handles what other nodes (and this one) publish.
func (r *Router) onMessage(m *backplane.Message) {
	switch m.Kind {
	case backplane.KindNotify:
		r.deliverNotify(m)
	case backplane.KindGap:
		r.deliverGap()
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
