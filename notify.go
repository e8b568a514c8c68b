package specter

import (
	"encoding/json"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// NotifyToolsChanged tells every session listening on a GET stream that
// the tool list changed, so clients list it again. Declaring or removing
// a tool while serving notifies by itself.
func (r *Router) NotifyToolsChanged() { r.broadcast(handlers.NotificationToolsChanged) }

// NotifyPromptsChanged tells listening sessions that the prompt list changed.
func (r *Router) NotifyPromptsChanged() { r.broadcast(handlers.NotificationPromptsChanged) }

// NotifyResourcesChanged tells listening sessions that the resource list changed.
func (r *Router) NotifyResourcesChanged() { r.broadcast(handlers.NotificationResourcesChanged) }

// NotifyResourceUpdated tells the sessions subscribed to uri (and allowed
// to read it) that the resource changed.
func (r *Router) NotifyResourceUpdated(uri string) {
	p, _ := json.Marshal(&mcp.ResourceUpdatedParams{URI: uri})
	msg := jsonrpc.AppendRequest(nil, nil, handlers.NotificationResourceUpdated, p)
	cat := r.catalog.Load()
	d, _ := cat.resourceFor(uri)
	for _, s := range r.sessions.all() {
		if !s.subscribed(uri) {
			continue
		}
		s.mu.Lock()
		sc := s.scope
		s.mu.Unlock()
		if d != nil && sc != nil && !sc.allowsResource(d, uri) {
			continue
		}
		s.notify(msg)
	}
}

func (r *Router) broadcast(method string) {
	msg := jsonrpc.AppendRequest(nil, nil, method, nil)
	for _, s := range r.sessions.all() {
		s.notify(msg)
	}
}

// changed notifies listeners after a declaration was added or removed.
func (r *Router) changed(k kind) {
	switch k {
	case kindTool:
		r.NotifyToolsChanged()
	case kindPrompt:
		r.NotifyPromptsChanged()
	default:
		r.NotifyResourcesChanged()
	}
}
