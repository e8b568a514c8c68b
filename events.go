package specter

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/jsonrpc"
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
		r.work.Go(func() {
			if err := guard.Run(func() { r.onEvent(&Session{s: s}, m.URI, m.Data) }); err != nil {
				r.report(s.Context(), fmt.Errorf("event on %q: %w", m.URI, err), nil)
			}
		})
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
// client gets (code -32602; a *jsonrpc.Error is sent as it is).
func OnSubscribe(f func(c *Context, uri string) error) RouterOption {
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

// TimeLimit bounds how long the work of a NoReply may run: past d its
// Stream's context ends and the client is told at once (a tool with an
// error result, a prompt or resource with a JSON-RPC error). Default: none.
func TimeLimit(d time.Duration) DeclOption {
	return declOption(func(decl *declaration) { decl.timeLimit = d })
}

// limit applies d's TimeLimit to the work of res.
func (d *declaration) limit(res Result) Result {
	if work := res.work; res.kind == resultNoReply && d.timeLimit > 0 {
		res.work = func(s *Stream) Result {
			if out, ok := guard.Within(s.ctx, d.timeLimit, func(ctx context.Context) Result {
				ls := *s
				ls.ctx = ctx
				return safely(func() Result { return work(&ls) })
			}); ok {
				return out
			}
			msg := fmt.Sprintf("%s %q did not finish within its time limit of %v and was stopped", d.kind, d.name, d.timeLimit)
			if d.kind == kindTool {
				return Error(NewToolError(msg))
			}
			return Error(jsonrpc.Errorf(jsonrpc.CodeInternalError, "Request timed out: %s", msg))
		}
	}
	return res
}

// OnDisconnect runs when a client's connection ends while the work of
// its request (a NoReply) still runs. In a session the work goes on, for
// the client may resume; on the 2026-07-28 wire it is cancelled.
func OnDisconnect(f func(c *Context)) RouterOption {
	return routerOption(func(r *Router) { r.onDrop = f })
}

// watchDrop runs OnDisconnect if c's connection ends before stop.
func (r *Router) watchDrop(c *Context) (stop func() bool) {
	if r.onDrop == nil || c.http == nil {
		return func() bool { return true }
	}
	return context.AfterFunc(c.http.Context(), func() { _ = guard.Run(func() { r.onDrop(c) }) })
}
