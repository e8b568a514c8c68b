// Package host aggregates several MCP servers behind one set of lists: a
// Host connects to each server with package client, names their tools,
// prompts, resources and resource templates "server.name", caches the
// lists for a TTL and refreshes them when a server says a list changed,
// and routes each call, read and completion to its server. It asks each
// server only for what it declared: a server with tools alone is never
// asked for resources or prompts. Package gateway re-exports everything
// through a Specter router: an MCP gateway in a few lines.
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

	"github.com/yosida95/uritemplate/v3"

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
	// The Host chains its own list_changed watch before OnNotification,
	// and fills Info, Version and Roots from the Host's Options where
	// they are unset.
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

	// Info names the Host's clients to every server whose Options give
	// no Info; default the client's own.
	Info mcp.Implementation
	// Version pins the protocol revision of every server whose Options
	// pin none; default none (each client negotiates).
	Version string
	// Roots are the roots shown to every server whose Options have no
	// Roots handler; RootsChanged announces a change to them.
	Roots func(ctx context.Context) ([]mcp.Root, error)
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
	watchers []func(ctx context.Context, server, notification string) // Watch's
}

type member struct {
	name      string
	c         *client.Client
	hostRoots bool // its roots are the Host's

	mu    sync.Mutex
	lists map[string]*cached // by list method
}

type cached struct {
	items   any // []mcp.Tool, []mcp.Prompt, []mcp.Resource or []template
	fetched time.Time
}

// listOf maps a list_changed notification to the lists it invalidates.
var listOf = map[string][]string{
	mcp.NotificationToolsChanged:     {mcp.MethodToolsList},
	mcp.NotificationPromptsChanged:   {mcp.MethodPromptsList},
	mcp.NotificationResourcesChanged: {mcp.MethodResourcesList, mcp.MethodResourceTemplatesList},
}

// declares reports whether a server declared the capability a list
// method needs.
func declares(caps mcp.ServerCapabilities, method string) bool {
	switch method {
	case mcp.MethodToolsList:
		return caps.Tools != nil
	case mcp.MethodPromptsList:
		return caps.Prompts != nil
	case mcp.MethodResourcesList, mcp.MethodResourceTemplatesList:
		return caps.Resources != nil
	}
	return false
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
	m := &member{name: s.Name, lists: map[string]*cached{}}
	var o client.Options
	if s.Options != nil {
		o = *s.Options
	}
	if o.Info.Name == "" {
		o.Info = h.opts.Info
	}
	if o.Version == "" {
		o.Version = h.opts.Version
	}
	if o.Roots == nil && h.opts.Roots != nil {
		o.Roots, m.hostRoots = h.opts.Roots, true
	}
	next := o.OnNotification
	o.OnNotification = func(method string, params json.RawMessage) {
		if lists, ok := listOf[method]; ok {
			m.mu.Lock()
			for _, list := range lists {
				delete(m.lists, list)
			}
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
	if f, ok := changesOf(c.ServerCapabilities()); ok && c.Stateless() {
		// 2026-07-28 has no session stream: list changes come through
		// subscriptions/listen, for as long as the Host lives.
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			_ = c.Listen(h.ctx, f)
		}()
	}
	return nil
}

// changesOf is the subscription to the list changes a server says it
// announces; ok is false when it announces none.
func changesOf(caps mcp.ServerCapabilities) (f mcp.SubscriptionFilter, ok bool) {
	f.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
	f.ResourcesListChanged = caps.Resources != nil && caps.Resources.ListChanged
	return f, f.ToolsListChanged || f.PromptsListChanged || f.ResourcesListChanged
}

// RootsChanged tells every server whose roots are the Host's
// (Options.Roots) that they changed, so that they ask for them again.
func (h *Host) RootsChanged(ctx context.Context) error {
	var errs []error
	for _, name := range h.names {
		if m := h.members[name]; m.hostRoots {
			if err := m.c.RootsChanged(ctx); err != nil {
				errs = append(errs, fmt.Errorf("host: server %s: %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// changed tells OnChange and the watchers that a server's list changed.
func (h *Host) changed(server, notification string) {
	if h.opts.OnChange != nil {
		h.opts.OnChange(server, notification)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	for _, w := range h.watchers {
		// Notifications arrive on a client's reading goroutine, which a
		// list request needs: w runs elsewhere.
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			w(h.ctx, server, notification)
		}()
	}
}

// Watch has f told, on a goroutine of its own, which server's list of
// which kind changed (mcp.NotificationToolsChanged, …), after the cache
// was dropped. Unlike Options.OnChange, f may ask the servers (list them
// again, say); its ctx ends at Close, which waits for it.
func (h *Host) Watch(f func(ctx context.Context, server, notification string)) {
	h.mu.Lock()
	h.watchers = append(h.watchers, f)
	h.mu.Unlock()
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
// the cache is empty or older than the TTL. A server that did not declare
// the list's capability has an empty list, and is not asked.
func list[T any](ctx context.Context, h *Host, m *member, method string, fetch func(context.Context) iter.Seq2[T, error]) ([]T, error) {
	return listAs(ctx, h, m, method, fetch, func(items []T) []T { return items })
}

// listAs is list, keeping what keep makes of the items in the cache.
func listAs[T, K any](ctx context.Context, h *Host, m *member, method string, fetch func(context.Context) iter.Seq2[T, error], keep func([]T) []K) ([]K, error) {
	if !declares(m.c.ServerCapabilities(), method) {
		return nil, nil
	}
	m.mu.Lock()
	if e := m.lists[method]; e != nil && time.Since(e.fetched) < h.opts.TTL {
		m.mu.Unlock()
		return e.items.([]K), nil
	}
	m.mu.Unlock()
	started := time.Now()
	var items []T
	for item, err := range fetch(ctx) {
		if err != nil {
			return nil, fmt.Errorf("host: server %s: %w", m.name, err)
		}
		items = append(items, item)
	}
	kept := keep(items)
	m.mu.Lock()
	// A list_changed that came while fetching dropped an older entry or
	// none; keep this list either way, stamped with when it was asked for.
	m.lists[method] = &cached{items: kept, fetched: started}
	m.mu.Unlock()
	return kept, nil
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

// ServerTools lists one server's tools, named "server.tool", the UI
// resources they link to named as Host URIs (ui://server/…).
func (h *Host) ServerTools(ctx context.Context, server string) ([]mcp.Tool, error) {
	tools, err := named(ctx, h, server, mcp.MethodToolsList, (*client.Client).Tools, func(t *mcp.Tool) *string { return &t.Name })
	for i := range tools {
		tools[i].Meta = namespaceUI(server, tools[i].Meta)
	}
	return tools, err
}

// Prompts lists every server's prompts, named "server.prompt".
func (h *Host) Prompts(ctx context.Context) ([]mcp.Prompt, error) {
	var out []mcp.Prompt
	for _, name := range h.names {
		prompts, err := h.ServerPrompts(ctx, name)
		if err != nil {
			return nil, err
		}
		out = append(out, prompts...)
	}
	return out, nil
}

// ServerPrompts lists one server's prompts, named "server.prompt".
func (h *Host) ServerPrompts(ctx context.Context, server string) ([]mcp.Prompt, error) {
	return named(ctx, h, server, mcp.MethodPromptsList, (*client.Client).Prompts, func(p *mcp.Prompt) *string { return &p.Name })
}

// Resources lists every server's resources, their names prefixed with
// "server."; URIs stay as their servers gave them, but for UI resources,
// which become ui://server/… as tools link to them.
func (h *Host) Resources(ctx context.Context) ([]mcp.Resource, error) {
	var out []mcp.Resource
	for _, name := range h.names {
		resources, err := h.ServerResources(ctx, name)
		if err != nil {
			return nil, err
		}
		out = append(out, resources...)
	}
	return out, nil
}

// ServerResources lists one server's resources, their names prefixed
// with "server."; URIs stay as the server gave them, but for UI resources,
// which become ui://server/… as tools link to them.
func (h *Host) ServerResources(ctx context.Context, server string) ([]mcp.Resource, error) {
	resources, err := named(ctx, h, server, mcp.MethodResourcesList, (*client.Client).Resources, func(r *mcp.Resource) *string { return &r.Name })
	for i := range resources {
		resources[i].URI = uiURI(server, resources[i].URI)
	}
	return resources, err
}

// named lists one server's items of one kind, each name prefixed with
// "server.".
func named[T any](ctx context.Context, h *Host, server, method string, fetch func(*client.Client, context.Context) iter.Seq2[T, error], name func(*T) *string) ([]T, error) {
	m, err := h.member(server)
	if err != nil {
		return nil, err
	}
	items, err := list(ctx, h, m, method, func(ctx context.Context) iter.Seq2[T, error] { return fetch(m.c, ctx) })
	if err != nil {
		return nil, err
	}
	out := make([]T, len(items))
	for i, it := range items {
		n := name(&it)
		*n = server + Separator + *n
		out[i] = it
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

// ResourceTemplates lists every server's resource templates, their names
// prefixed with "server."; URI templates stay as their servers gave them.
func (h *Host) ResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	var out []mcp.ResourceTemplate
	for _, name := range h.names {
		templates, err := h.ServerResourceTemplates(ctx, name)
		if err != nil {
			return nil, err
		}
		out = append(out, templates...)
	}
	return out, nil
}

// ServerResourceTemplates lists one server's resource templates, their
// names prefixed with "server."; URI templates stay as the server gave
// them.
func (h *Host) ServerResourceTemplates(ctx context.Context, server string) ([]mcp.ResourceTemplate, error) {
	m, err := h.member(server)
	if err != nil {
		return nil, err
	}
	templates, err := h.templates(ctx, m)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.ResourceTemplate, len(templates))
	for i, t := range templates {
		out[i] = t.ResourceTemplate
		out[i].Name = server + Separator + out[i].Name
	}
	return out, nil
}

// template is a listed resource template, compiled for matching URIs;
// nil t for a template that does not compile, which matches nothing.
type template struct {
	mcp.ResourceTemplate
	t *uritemplate.Template
}

// templates returns a member's resource templates, compiled once per
// listing.
func (h *Host) templates(ctx context.Context, m *member) ([]template, error) {
	return listAs(ctx, h, m, mcp.MethodResourceTemplatesList, m.c.ResourceTemplates, func(items []mcp.ResourceTemplate) []template {
		out := make([]template, len(items))
		for i, rt := range items {
			out[i].ResourceTemplate = rt
			out[i].t, _ = uritemplate.New(rt.URITemplate)
		}
		return out
	})
}

// ReadResource reads a resource from the server that lists its URI or,
// failing that, from the server with a resource template that matches
// it. URIs are not namespaced: when two servers offer the same URI, the
// first server given to New serves it. UI resources are (ui://server/…):
// they are read from their server, whether it lists them or not.
func (h *Host) ReadResource(ctx context.Context, uri string, opts ...client.CallOption) (*mcp.ReadResourceResult, error) {
	if strings.HasPrefix(uri, mcp.UIScheme) {
		server, original, ok := serverUIURI(uri)
		if !ok {
			return nil, fmt.Errorf("host: %s names no server: UI resources are ui://server/…", uri)
		}
		m, err := h.member(server)
		if err != nil {
			return nil, err
		}
		res, err := m.c.ReadResource(ctx, original, opts...)
		if err != nil {
			return nil, err
		}
		return namespaceContents(server, res), nil
	}
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
	for _, name := range h.names {
		m := h.members[name]
		templates, err := h.templates(ctx, m)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(templates, func(t template) bool { return t.t != nil && t.t.Match(uri) != nil }) {
			return m.c.ReadResource(ctx, uri, opts...)
		}
	}
	return nil, fmt.Errorf("host: no server lists the resource %s or a template that matches it", uri)
}

// Complete asks for completions of a prompt's argument, the prompt named
// "server.prompt", or of a resource template's, sent to the first server
// that lists the template.
func (h *Host) Complete(ctx context.Context, p mcp.CompleteParams) (*mcp.CompleteResult, error) {
	switch p.Ref.Type {
	case mcp.RefPrompt:
		m, item, err := h.route(p.Ref.Name)
		if err != nil {
			return nil, err
		}
		p.Ref.Name = item
		return m.complete(ctx, p)
	case mcp.RefResource:
		for _, name := range h.names {
			m := h.members[name]
			templates, err := h.templates(ctx, m)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(templates, func(t template) bool { return t.URITemplate == p.Ref.URI }) {
				return m.complete(ctx, p)
			}
		}
		return nil, fmt.Errorf("host: no server lists the resource template %s", p.Ref.URI)
	}
	return nil, fmt.Errorf("host: completion of a %q reference", p.Ref.Type)
}

// complete sends a completion to a server that declared completions.
func (m *member) complete(ctx context.Context, p mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if m.c.ServerCapabilities().Completions == nil {
		return nil, fmt.Errorf("host: server %s does not offer completions", m.name)
	}
	return m.c.Complete(ctx, p)
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
