package specter

import (
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/mcp"
)

// NotifyOption narrows who receives a notification.
type NotifyOption func(*notifyOptions)

type notifyOptions struct {
	principal string
	targeted  bool
}

// ForPrincipal sends the notification only to the sessions and listen
// streams of one authenticated caller, for example after that user's plan
// changed: r.NotifyToolsChanged(specter.ForPrincipal(userID)).
func ForPrincipal(id string) NotifyOption {
	return func(o *notifyOptions) { o.principal, o.targeted = id, true }
}

// NotifyToolsChanged tells listening clients that the tool list changed,
// so they list it again: session-era clients on their GET stream, and
// 2026-07-28 clients on subscriptions/listen streams that asked for
// toolsListChanged. Declaring or removing a tool notifies by itself.
func (r *Router) NotifyToolsChanged(opts ...NotifyOption) {
	r.broadcast(mcp.NotificationToolsChanged, "", opts)
}

// NotifyPromptsChanged tells listening clients that the prompt list changed.
func (r *Router) NotifyPromptsChanged(opts ...NotifyOption) {
	r.broadcast(mcp.NotificationPromptsChanged, "", opts)
}

// NotifyResourcesChanged tells listening clients that the resource list changed.
func (r *Router) NotifyResourcesChanged(opts ...NotifyOption) {
	r.broadcast(mcp.NotificationResourcesChanged, "", opts)
}

// NotifyResourceUpdated tells the clients subscribed to uri (and allowed
// to read it) that the resource changed.
func (r *Router) NotifyResourceUpdated(uri string, opts ...NotifyOption) {
	r.broadcast(mcp.NotificationResourceUpdated, uri, opts)
}

// broadcast sends a notification through the backplane, so the clients
// listening on every node get it.
func (r *Router) broadcast(method, uri string, opts []NotifyOption) {
	var o notifyOptions
	for _, f := range opts {
		f(&o)
	}
	r.publish(&backplane.Message{Kind: backplane.KindNotify, Method: method, URI: uri, Principal: o.principal, Targeted: o.targeted})
}

// deliverNotify hands a notification to the GET streams and listen
// streams attached to this node whose callers may see it.
func (r *Router) deliverNotify(m *backplane.Message) {
	var d *declaration
	if m.Method == mcp.NotificationResourceUpdated {
		// Subscriptions and access checks hold canonical URIs.
		canonical := *m
		d, canonical.URI = resourceFor(r.catalog.Load(), m.URI)
		m = &canonical
	}
	allowed := func(a any) bool {
		g, _ := a.(*grant)
		if d == nil || g == nil {
			return true
		}
		ok, _ := g.permits(d)
		return ok && g.allowsResource(d, m.URI)
	}
	r.cluster.Notify(m, allowed)
	r.t.Listeners.Notify(m, allowed)
}

// deliverGap tells the listeners attached to this node that change
// notifications may have been lost between nodes (the backplane's
// subscription broke and came back, or a node could not publish), in the
// spec's own terms: every list changed, and every resource subscribed to
// was updated, so clients list and read again what they follow. That may
// be more than was lost, never less.
func (r *Router) deliverGap() {
	r.log.Warn().Msg("mcp backplane: notifications between nodes may have been lost; telling listeners to read again")
	for _, method := range []string{mcp.NotificationToolsChanged, mcp.NotificationPromptsChanged, mcp.NotificationResourcesChanged} {
		r.deliverNotify(&backplane.Message{Kind: backplane.KindNotify, Method: method})
	}
	uris := map[string]struct{}{}
	for _, s := range r.sessions.All() {
		if s.HasGetStream() {
			for _, uri := range s.Subscriptions() {
				uris[uri] = struct{}{}
			}
		}
	}
	for _, l := range r.t.Listeners.All() {
		for _, uri := range l.Resources() {
			uris[uri] = struct{}{}
		}
	}
	for uri := range uris {
		r.deliverNotify(&backplane.Message{Kind: backplane.KindNotify, Method: mcp.NotificationResourceUpdated, URI: uri})
	}
}

// changed notifies listeners after a declaration was added or removed.
func (r *Router) changed(k kind) {
	r.broadcast([...]string{kindTool: mcp.NotificationToolsChanged, kindPrompt: mcp.NotificationPromptsChanged,
		kindResource: mcp.NotificationResourcesChanged}[k], "", nil)
}
