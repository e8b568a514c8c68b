package specter

import (
	"encoding/json"
	"fmt"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/session"
)

// OnEvent sets what a session does with an application event: Publish,
// on any node, runs f on its own goroutine for every session subscribed
// to the topic (Session.Subscribe), once, on the node where its GET
// stream is open. f may notify the client and change the session's data.
func OnEvent(f func(s *Session, topic string, data json.RawMessage)) RouterOption {
	return routerOption(func(r *Router) { r.onEvent = f })
}

// Publish sends data (anything that encodes to JSON) on topic to the
// sessions subscribed to it, on every node (see OnEvent).
func (r *Router) Publish(topic string, data any) error { return r.cluster.Publish(topic, data) }

func (r *Router) deliverEvent(m *backplane.Message) {
	for _, s := range r.cluster.Followers(m.URI) {
		if !r.work.begin() {
			return // shutting down: the event reaches no one
		}
		go func() {
			defer r.work.done()
			if err := guard.Run(func() { r.onEvent(&Session{s: s}, m.URI, m.Data) }); err != nil {
				r.report(s.Context(), fmt.Errorf("event on %q: %w", m.URI, err), nil)
			}
		}()
	}
}

// Subscribe subscribes the session to an application topic, for every
// node of the deployment (see OnEvent).
func (s *Session) Subscribe(topic string) error { return s.s.Follow(topic, true) }

// Unsubscribe ends the session's subscription to topic.
func (s *Session) Unsubscribe(topic string) error { return s.s.Follow(topic, false) }

// Notify sends the client a notification (resources/updated, a
// list_changed, a log message…) on the session's GET stream, if the
// client opened it on this node; otherwise there is no channel for it.
func (s *Session) Notify(method string, params any) error { return s.s.NotifyJSON(method, params) }

// OnSubscribe runs on resources/subscribe the caller may make: it may
// start an upstream watcher, or refuse with an error, whose message the
// client gets (code -32602; a *jsonrpc.Error is sent as it is). p holds
// the variables of the template the URI matched, typed as its params
// declare (see Router.Resource); it is empty for a fixed URI.
func OnSubscribe(f func(c *Context, uri string, p Params) error) RouterOption {
	return routerOption(func(r *Router) { r.onSubscribe = f })
}

// OnUnsubscribe runs on resources/unsubscribe, and for each subscription
// left when the session ends, to stop what OnSubscribe started.
func OnUnsubscribe(f func(s *Session, uri string)) RouterOption {
	return routerOption(func(r *Router) { r.onUnsub = f })
}

// unsubscribed runs OnUnsubscribe, if set.
func (r *Router) unsubscribed(s *session.Session, uri string) {
	if r.onUnsub != nil {
		r.onUnsub(&Session{s: s}, uri)
	}
}
