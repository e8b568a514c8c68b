package specter

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// listener is one open subscriptions/listen stream (2026-07-28).
type listener struct {
	id     jsonrpc.ID
	filter mcp.SubscriptionFilter
	grant  *grant
	ob     *stream.Stream
}

// listeners is the set of open listen streams of a router.
type listeners struct {
	mu sync.RWMutex
	m  map[*listener]struct{}
}

func (ls *listeners) add(l *listener) {
	ls.mu.Lock()
	ls.m[l] = struct{}{}
	ls.mu.Unlock()
}

func (ls *listeners) remove(l *listener) {
	ls.mu.Lock()
	delete(ls.m, l)
	ls.mu.Unlock()
}

func (ls *listeners) all() []*listener {
	ls.mu.RLock()
	defer ls.mu.RUnlock()
	return slices.Collect(maps.Keys(ls.m))
}

// Listeners returns the number of open subscriptions/listen streams.
func (r *Router) Listeners() int {
	r.listen.mu.RLock()
	defer r.listen.mu.RUnlock()
	return len(r.listen.m)
}

// serveListen answers subscriptions/listen with a stream that stays open:
// an acknowledgement first, then the change notifications the client
// asked for, each tagged with the subscription id (the request id).
func (r *Router) serveListen(w http.ResponseWriter, req *http.Request, c *Context, m *jsonrpc.Message) {
	var p mcp.SubscriptionsListenParams
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &p); err != nil {
			refusal.Write(w, m.ID, refusal.InvalidParams(err))
			return
		}
	}
	if r.closing.Load() {
		refusal.Write(w, m.ID, refusal.ShuttingDown)
		return
	}
	release, ok := r.caps.listeners.Take(c.holder())
	if !ok {
		refusal.Write(w, m.ID, refusal.ListenersPerCaller(r.caps.listeners.Limit()))
		return
	}
	l := &listener{id: m.ID, filter: p.Notifications, grant: c.grant, ob: r.streams.New(stream.Options{Standalone: true})}
	ack, _ := json.Marshal(map[string]any{
		"_meta":         map[string]json.RawMessage{mcp.MetaSubscriptionID: json.RawMessage(m.ID)},
		"notifications": p.Notifications,
	})
	// The acknowledgement is the first frame, and the listener is
	// registered before the client can see it: the stream keeps both for
	// its connection, in order, until the connection attaches.
	l.ob.Send(jsonrpc.AppendRequest(nil, nil, mcp.NotificationSubscriptionsAck, ack), false)
	r.listen.add(l)
	// The stream lives until the client leaves or the router shuts
	// down; on a hijacked connection nothing waits here.
	l.ob.Serve(w, req, 0, func() { r.listen.remove(l); release() })
	if r.closing.Load() || !l.ob.Attached() {
		l.ob.Stop() // over, or Shutdown may have missed it
	}
}

// notification encodes a change notification for a listener: its params
// carry the subscription id in _meta.
func (l *listener) notification(method string, params map[string]any) []byte {
	p := map[string]any{"_meta": map[string]json.RawMessage{mcp.MetaSubscriptionID: json.RawMessage(l.id)}}
	for k, v := range params {
		p[k] = v
	}
	b, _ := json.Marshal(p)
	return jsonrpc.AppendRequest(nil, nil, method, b)
}

func (l *listener) wants(method string) bool {
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

func (l *listener) subscribed(uri string) bool {
	return slices.Contains(l.filter.ResourceSubscriptions, uri)
}
