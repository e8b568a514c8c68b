package host

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// Mount re-exports the servers' tools, prompts and resources through a
// Specter router, tools and prompts under their "server.name" names and
// resources at their own URIs: requests are forwarded to the servers and
// their results passed back as they are, with the progress of tool calls. When a server's list
// changes, its declarations on r are replaced, and r tells its own
// clients; a storm of list_changed costs two refetches per server and
// kind (the one in flight and one pending), not one each. Items r refuses to declare (a tool without a usable input
// schema, say) are skipped, and reported in the returned error; the rest
// are mounted.
func (h *Host) Mount(ctx context.Context, r *specter.Router) error {
	g := &gateway{h: h, r: r, declared: map[string][]declared{}}
	var errs []error
	for _, name := range h.names {
		for _, kind := range []string{mcp.NotificationToolsChanged, mcp.NotificationPromptsChanged, mcp.NotificationResourcesChanged} {
			errs = append(errs, g.sync(ctx, name, kind))
		}
	}
	h.watch(func(ctx context.Context, server, notification string) { _ = g.sync(ctx, server, notification) })
	return errors.Join(errs...)
}

// gateway is one Mount: what it declared on its router, per server.
type gateway struct {
	h *Host
	r *specter.Router

	mu       sync.Mutex // one sync at a time
	declared map[string][]declared
}

type declared struct {
	kind string // the list_changed notification of its kind
	name string // a resource's URI
}

// sync declares a server's current tools or prompts on the router in
// place of those declared before.
func (g *gateway) sync(ctx context.Context, server, notification string) error {
	var decls []func() error
	var names []string
	switch notification {
	case mcp.NotificationToolsChanged:
		tools, err := g.h.ServerTools(ctx, server)
		if err != nil {
			return err
		}
		for _, t := range tools {
			names = append(names, t.Name)
			decls = append(decls, func() error { return g.tool(t) })
		}
	case mcp.NotificationPromptsChanged:
		m := g.h.members[server]
		prompts, err := list(ctx, g.h, m, mcp.MethodPromptsList, m.c.Prompts)
		if err != nil {
			return err
		}
		for _, p := range prompts {
			p.Name = server + Separator + p.Name
			names = append(names, p.Name)
			decls = append(decls, func() error { return g.prompt(p) })
		}
	case mcp.NotificationResourcesChanged:
		m := g.h.members[server]
		resources, err := list(ctx, g.h, m, mcp.MethodResourcesList, m.c.Resources)
		if err != nil {
			return err
		}
		for _, r := range resources {
			names = append(names, r.URI)
			decls = append(decls, func() error { return g.resource(m, r) })
		}
	default:
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var kept []declared
	for _, d := range g.declared[server] {
		if d.kind != notification {
			kept = append(kept, d)
			continue
		}
		switch d.kind {
		case mcp.NotificationToolsChanged:
			g.r.RemoveTool(d.name)
		case mcp.NotificationPromptsChanged:
			g.r.RemovePrompt(d.name)
		default:
			g.r.RemoveResource(d.name)
		}
	}
	var errs []error
	for i, declare := range decls {
		if err := declare(); err != nil {
			errs = append(errs, err)
			continue
		}
		kept = append(kept, declared{kind: notification, name: names[i]})
	}
	g.declared[server] = kept
	return errors.Join(errs...)
}

// declare runs a declaration, turning the router's panic over a bad one
// into an error.
func declare(kind, name string, f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("host: gateway: %s %s: %v", kind, name, v)
		}
	}()
	f()
	return nil
}

func (g *gateway) tool(t mcp.Tool) error {
	opts := []specter.Option{specter.Description(orDefault(t.Description, "Tool "+t.Name)), specter.InputSchema(t.InputSchema)}
	if len(t.OutputSchema) > 0 {
		opts = append(opts, specter.OutputSchema(t.OutputSchema))
	}
	return declare("tool", t.Name, func() {
		g.r.Tool(t.Name, func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
			return specter.NoReply(func(s *specter.Stream) specter.Result {
				// The server's progress is the gateway client's (when it
				// asked for progress: Stream.Progress checks).
				relay := client.WithProgress(func(pp mcp.ProgressParams) {
					var total float64
					if pp.Total != nil {
						total = *pp.Total
					}
					_ = s.Progress(pp.Progress, total, pp.Message)
				})
				res, err := g.h.CallTool(s, t.Name, map[string]any(p), relay)
				if err != nil {
					return specter.Error(err)
				}
				return specter.Reply(res)
			})
		}, opts...)
	})
}

func (g *gateway) prompt(p mcp.Prompt) error {
	opts := []specter.Option{specter.Description(orDefault(p.Description, "Prompt "+p.Name))}
	for _, a := range p.Arguments {
		var o []params.Option
		if a.Description != "" {
			o = append(o, params.Description(a.Description))
		}
		if a.Required {
			o = append(o, params.Required())
		}
		opts = append(opts, params.String(a.Name, o...))
	}
	return declare("prompt", p.Name, func() {
		g.r.Prompt(p.Name, func(v specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			args := make(map[string]string, len(v))
			for k := range v {
				args[k] = v.String(k)
			}
			res, err := g.h.GetPrompt(c, p.Name, args)
			if err != nil {
				return specter.Error(err)
			}
			return specter.Reply(res.Messages)
		}, opts...)
	})
}

// resource re-exports a resource of m at its URI. A URI another server
// already declared on the router is refused, and reported.
func (g *gateway) resource(m *member, r mcp.Resource) error {
	opts := []specter.Option{specter.Name(m.name + Separator + r.Name), specter.Description(orDefault(r.Description, "Resource "+r.URI))}
	if r.MIMEType != "" {
		opts = append(opts, specter.MIMEType(r.MIMEType))
	}
	return declare("resource", r.URI, func() {
		g.r.Resource(r.URI, func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			res, err := m.c.ReadResource(c, r.URI)
			if err != nil {
				return specter.Error(err)
			}
			return specter.Reply(res)
		}, opts...)
	})
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
