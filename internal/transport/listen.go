package transport

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Listener is one open subscriptions/listen stream (2026-07-28).
type Listener struct {
	id        jsonrpc.ID
	filter    mcp.SubscriptionFilter
	principal string
	grant     any
	ob        *stream.Stream
}

// Principal is the listening caller's principal; "" if anonymous.
func (l *Listener) Principal() string { return l.principal }

// Grant is what the Host's Grant gave for the listening caller.
func (l *Listener) Grant() any { return l.grant }

// Listeners is the set of open listen streams of a transport.
type Listeners struct {
	mu sync.RWMutex
	m  map[*Listener]struct{}
}

func (ls *Listeners) add(l *Listener) {
	ls.mu.Lock()
	ls.m[l] = struct{}{}
	ls.mu.Unlock()
}

func (ls *Listeners) remove(l *Listener) {
	ls.mu.Lock()
	delete(ls.m, l)
	ls.mu.Unlock()
}

// All returns the open listeners.
func (ls *Listeners) All() []*Listener {
	ls.mu.RLock()
	defer ls.mu.RUnlock()
	return slices.Collect(maps.Keys(ls.m))
}

// Len returns the number of open listeners.
func (ls *Listeners) Len() int {
	ls.mu.RLock()
	defer ls.mu.RUnlock()
	return len(ls.m)
}

// Notify hands notification m to the listeners it reaches (see
// session.Reaches) that asked for it: a list_changed to those whose
// filter names it, a resources/updated to those subscribed to its URI
// whose grant allowed says may read it.
func (ls *Listeners) Notify(m *backplane.Message, allowed func(grant any) bool) {
	updated := m.Method == mcp.NotificationResourceUpdated
	var uri []byte
	if updated {
		uri, _ = json.Marshal(m.URI)
	}
	stream.FanOut(ls.All(), func(l *Listener) {
		switch {
		case !session.Reaches(m, l.principal):
		case !updated && l.Wants(m.Method):
			l.Notify(m.Method, nil)
		case updated && l.Subscribed(m.URI) && allowed(l.grant):
			l.Notify(m.Method, uri)
		}
	})
}

// Stop ends every open listen stream, at shutdown.
func (ls *Listeners) Stop() {
	for _, l := range ls.All() {
		l.ob.Stop()
	}
}

// serveListen answers subscriptions/listen with a stream that stays open:
// an acknowledgement first, then the change notifications the client
// asked for, each tagged with the subscription id (the request id).
func (t *Transport[C]) serveListen(w http.ResponseWriter, req *http.Request, c C, m *jsonrpc.Message) {
	var p mcp.SubscriptionsListenParams
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &p); err != nil {
			refusal.Write(w, m.ID, refusal.InvalidParams(err))
			return
		}
	}
	if n, limit := len(p.Notifications.ResourceSubscriptions), t.cfg.MaxSubscriptions; limit > 0 && n > limit {
		refusal.Write(w, m.ID, refusal.BadRequest(jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
			"Invalid params: the filter names %d resources; a listen stream follows at most %d", n, limit)))
		return
	}
	if t.cfg.Closing.Load() {
		refusal.Write(w, m.ID, refusal.ShuttingDown)
		return
	}
	release, refused := t.cfg.Quotas.listener(t.host.Holder(c))
	if refused != nil {
		refusal.Write(w, m.ID, refused)
		return
	}
	l := &Listener{id: m.ID, filter: p.Notifications, principal: t.host.Principal(c), grant: t.host.Grant(c),
		ob: t.cfg.Streams.New(stream.Options{Standalone: true})}
	// Updates are matched by URI, spelled as the router spells them
	// (its URIs are normalized the same way).
	l.filter.ResourceSubscriptions = make([]string, len(p.Notifications.ResourceSubscriptions))
	for i, u := range p.Notifications.ResourceSubscriptions {
		l.filter.ResourceSubscriptions[i] = uripattern.Normalize(u)
	}
	ack, _ := json.Marshal(map[string]any{
		"_meta":         map[string]json.RawMessage{mcp.MetaSubscriptionID: json.RawMessage(m.ID)},
		"notifications": p.Notifications,
	})
	// The acknowledgement is the first frame, and the listener is
	// registered before the client can see it: the stream keeps both for
	// its connection, in order, until the connection attaches.
	l.ob.Send(jsonrpc.AppendRequest(nil, nil, mcp.NotificationSubscriptionsAck, ack), false)
	t.Listeners.add(l)
	// The stream lives until the client leaves or the router shuts
	// down; on a hijacked connection nothing waits here.
	l.ob.Serve(w, req, 0, func() { t.Listeners.remove(l); release() })
	if t.cfg.Closing.Load() || !l.ob.Attached() {
		l.ob.Stop() // over, or Shutdown may have missed it
	}
}

// Notify sends notification method to l, its params carrying the
// subscription id in _meta and, unless nil, uri: the updated resource's
// URI as a JSON string. Written by hand, since one update may go to
// thousands of listeners.
func (l *Listener) Notify(method string, uri []byte) {
	p := make([]byte, 0, len(`{"_meta":{"":},"uri":}`)+len(mcp.MetaSubscriptionID)+len(l.id)+len(uri))
	p = append(append(append(append(p, `{"_meta":{"`...), mcp.MetaSubscriptionID...), `":`...), l.id...)
	p = append(p, '}')
	if uri != nil {
		p = append(append(p, `,"uri":`...), uri...)
	}
	l.ob.Notice(jsonrpc.AppendRequest(nil, nil, method, append(p, '}')))
}

// Wants reports whether l asked for the list-changed notification method.
func (l *Listener) Wants(method string) bool {
	switch method {
	case mcp.NotificationToolsChanged:
		return l.filter.ToolsListChanged
	case mcp.NotificationPromptsChanged:
		return l.filter.PromptsListChanged
	case mcp.NotificationResourcesChanged:
		return l.filter.ResourcesListChanged
	}
	return false
}

// Resources returns the URIs of the resources l asked for updates of.
func (l *Listener) Resources() []string { return l.filter.ResourceSubscriptions }

// Subscribed reports whether l asked for updates of the resource uri.
func (l *Listener) Subscribed(uri string) bool {
	return slices.Contains(l.filter.ResourceSubscriptions, uri)
}
