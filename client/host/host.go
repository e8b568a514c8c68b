// Package host aggregates several MCP servers behind one set of lists: a
// Host connects to each server with package client, names their tools,
// prompts and resources "server.name", caches the lists for a TTL and
// refreshes them when a server says a list changed, and routes each call
// to its server. Mount re-exports everything through a Specter router:
// an MCP gateway in a few lines.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// Server is one server of a Host.
type Server struct {
	// Name prefixes the server's tools, prompts and resource names. It
	// must not contain the separator.
	Name      string
	Transport client.Transport
	// Options configure the server's client (handlers, version pin, …).
	// The Host chains its own list_changed watch before OnNotification.
	Options *client.Options
}

// Options configure a Host.
type Options struct {
	// TTL is how long a server's list is served from the cache; default
	// one minute. A list_changed notification ends it at once.
	TTL time.Duration
	// OnChange, if set, hears which server's list of which kind changed
	// (mcp.NotificationToolsChanged, …), after the cache was dropped.
	OnChange func(server, notification string)
}

// Separator joins a server's name and an item's name.
const Separator = "."

// Host is a set of connected servers. It is safe for concurrent use.
type Host struct {
	opts    Options
	names   []string // in the order given
	members map[string]*member

	ctx    context.Context // ends at Close: the listen streams
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	watchers []*watcher // Mount's
}

type member struct {
	name string
	c    *client.Client

	mu    sync.Mutex
	lists map[string]*cached // by list method
	// changes counts the list_changed notifications of each list method,
	// so that a fetch overtaken by one is not cached.
	changes map[string]int
}

type cached struct {
	items   any // []mcp.Tool, []mcp.Prompt or []mcp.Resource
	fetched time.Time
}

// listOf maps a list_changed notification to the list it invalidates.
var listOf = map[string]string{
	mcp.NotificationToolsChanged:     mcp.MethodToolsList,
	mcp.NotificationPromptsChanged:   mcp.MethodPromptsList,
	mcp.NotificationResourcesChanged: mcp.MethodResourcesList,
}

// New connects to every server. If one fails, the others are closed and
// the error names it.
func New(ctx context.Context, servers []Server, opts *Options) (*Host, error) {
	h := &Host{members: map[string]*member{}}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.TTL <= 0 {
		h.opts.TTL = time.Minute
	}
	h.ctx, h.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for _, s := range servers {
		if err := h.add(ctx, s); err != nil {
			_ = h.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	return h, nil
}

func (h *Host) add(ctx context.Context, s Server) error {
	switch {
	case s.Name == "" || strings.Contains(s.Name, Separator):
		return fmt.Errorf("host: server name %q must be non-empty and without %q", s.Name, Separator)
	case h.members[s.Name] != nil:
		return fmt.Errorf("host: two servers are named %q", s.Name)
	}
	m := &member{name: s.Name, lists: map[string]*cached{}, changes: map[string]int{}}
	var o client.Options
	if s.Options != nil {
		o = *s.Options
	}
	next := o.OnNotification
	o.OnNotification = func(method string, params json.RawMessage) {
		if list, ok := listOf[method]; ok {
			m.mu.Lock()
			delete(m.lists, list)
			m.changes[list]++
			m.mu.Unlock()
			h.changed(m.name, method)
		}
		if next != nil {
			next(method, params)
		}
	}
	c, err := client.Connect(ctx, s.Transport, &o)
	if err != nil {
		return fmt.Errorf("host: server %s: %w", s.Name, err)
	}
	m.c = c
	h.members[s.Name] = m
	h.names = append(h.names, s.Name)
	if c.Modern() {
		// 2026-07-28 has no session stream: list changes come through
		// subscriptions/listen, for as long as the Host lives.
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			_ = c.Listen(h.ctx, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true})
		}()
	}
	return nil
}

// changed tells OnChange and the gateways that a server's list changed.
func (h *Host) changed(server, notification string) {
	if h.opts.OnChange != nil {
		h.opts.OnChange(server, notification)
	}
	h.mu.Lock()
	watchers := slices.Clone(h.watchers)
	h.mu.Unlock()
	for _, w := range watchers {
		h.deliver(w, server, notification)
	}
}

// watcher hears a Host's list changes through fn, in a goroutine of its
// own (notifications arrive on a client's reading goroutine, which fn's
// list requests need), one call at a time per server and kind: changes
// that come while a call runs fold into one more call, so that a storm of
// list_changed costs two refetches, not one each.
type watcher struct {
	fn func(ctx context.Context, server, notification string)

	mu    sync.Mutex
	state map[[2]string]bool // calls running, by server and kind: whether another is pending
}

// watch adds a watcher calling fn.
func (h *Host) watch(fn func(ctx context.Context, server, notification string)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watchers = append(h.watchers, &watcher{fn: fn, state: map[[2]string]bool{}})
}

// deliver calls w for a change, or marks one pending behind the call
// running for the same server and kind.
func (h *Host) deliver(w *watcher, server, notification string) {
	key := [2]string{server, notification}
	w.mu.Lock()
	if _, running := w.state[key]; running {
		w.state[key] = true
		w.mu.Unlock()
		return
	}
	w.state[key] = false
	w.mu.Unlock()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		w.mu.Lock()
		delete(w.state, key)
		w.mu.Unlock()
		return
	}
	h.wg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.wg.Done()
		for {
			w.fn(h.ctx, server, notification)
			w.mu.Lock()
			if !w.state[key] {
				delete(w.state, key)
				w.mu.Unlock()
				return
			}
			w.state[key] = false
			w.mu.Unlock()
		}
	}()
}

// Close ends the listen streams and closes every client.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
	var errs []error
	for _, name := range h.names {
		if err := h.members[name].c.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("host: closing %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// Client returns the client of the named server, or nil.
func (h *Host) Client(server string) *client.Client {
	if m := h.members[server]; m != nil {
		return m.c
	}
	return nil
}

// Servers returns the servers' names, in the order given to New.
func (h *Host) Servers() []string { return slices.Clone(h.names) }

// list returns a member's list from the cache, or from the server when
// the cache is empty or older than the TTL.
func list[T any](ctx context.Context, h *Host, m *member, method string, fetch func(context.Context) iter.Seq2[T, error]) ([]T, error) {
	m.mu.Lock()
	if e := m.lists[method]; e != nil && time.Since(e.fetched) < h.opts.TTL {
		m.mu.Unlock()
		return e.items.([]T), nil
	}
	changes := m.changes[method]
	m.mu.Unlock()
	started := time.Now()
	var items []T
	for item, err := range fetch(ctx) {
		if err != nil {
			return nil, fmt.Errorf("host: server %s: %w", m.name, err)
		}
		items = append(items, item)
	}
	m.mu.Lock()
	// A list_changed that came while fetching may not be in this list:
	// keep it only if none did, stamped with when it was asked for.
	if m.changes[method] == changes {
		m.lists[method] = &cached{items: items, fetched: started}
	}
	m.mu.Unlock()
	return items, nil
}

// Tools lists every server's tools, named "server.tool".
func (h *Host) Tools(ctx context.Context) ([]mcp.Tool, error) {
	var out []mcp.Tool
	for _, name := range h.names {
		tools, err := h.ServerTools(ctx, name)
		if err != nil {
			return nil, err
		}
		out = append(out, tools...)
	}
	return out, nil
}

// ServerTools lists one server's tools, named "server.tool".
func (h *Host) ServerTools(ctx context.Context, server string) ([]mcp.Tool, error) {
	m, err := h.member(server)
	if err != nil {
		return nil, err
	}
	tools, err := list(ctx, h, m, mcp.MethodToolsList, m.c.Tools)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.Tool, len(tools))
	for i, t := range tools {
		t.Name = server + Separator + t.Name
		out[i] = t
	}
	return out, nil
}

// Prompts lists every server's prompts, named "server.prompt".
func (h *Host) Prompts(ctx context.Context) ([]mcp.Prompt, error) {
	var out []mcp.Prompt
	for _, name := range h.names {
		m := h.members[name]
		prompts, err := list(ctx, h, m, mcp.MethodPromptsList, m.c.Prompts)
		if err != nil {
			return nil, err
		}
		for _, p := range prompts {
			p.Name = name + Separator + p.Name
			out = append(out, p)
		}
	}
	return out, nil
}

// Resources lists every server's resources, their names prefixed with
// "server."; URIs stay as their servers gave them.
func (h *Host) Resources(ctx context.Context) ([]mcp.Resource, error) {
	var out []mcp.Resource
	for _, name := range h.names {
		m := h.members[name]
		resources, err := list(ctx, h, m, mcp.MethodResourcesList, m.c.Resources)
		if err != nil {
			return nil, err
		}
		for _, r := range resources {
			r.Name = name + Separator + r.Name
			out = append(out, r)
		}
	}
	return out, nil
}

// CallTool calls "server.tool" on its server.
func (h *Host) CallTool(ctx context.Context, name string, args any, opts ...client.CallOption) (*mcp.CallToolResult, error) {
	m, item, err := h.route(name)
	if err != nil {
		return nil, err
	}
	return m.c.CallTool(ctx, item, args, opts...)
}

// GetPrompt gets "server.prompt" from its server.
func (h *Host) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...client.CallOption) (*mcp.GetPromptResult, error) {
	m, item, err := h.route(name)
	if err != nil {
		return nil, err
	}
	return m.c.GetPrompt(ctx, item, args, opts...)
}

// ReadResource reads a resource from the server that listed its URI.
// URIs are not namespaced: when two servers list the same URI, the first
// server given to New serves it.
func (h *Host) ReadResource(ctx context.Context, uri string, opts ...client.CallOption) (*mcp.ReadResourceResult, error) {
	for _, name := range h.names {
		m := h.members[name]
		resources, err := list(ctx, h, m, mcp.MethodResourcesList, m.c.Resources)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(resources, func(r mcp.Resource) bool { return r.URI == uri }) {
			return m.c.ReadResource(ctx, uri, opts...)
		}
	}
	return nil, fmt.Errorf("host: no server lists the resource %s", uri)
}

// route splits "server.item" and finds the server.
func (h *Host) route(name string) (*member, string, error) {
	server, item, ok := strings.Cut(name, Separator)
	if !ok || item == "" {
		return nil, "", fmt.Errorf("host: %q is not of the form server%sname", name, Separator)
	}
	m, err := h.member(server)
	return m, item, err
}

func (h *Host) member(server string) (*member, error) {
	if m := h.members[server]; m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("host: no server named %q", server)
}
