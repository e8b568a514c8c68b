// Package gateway re-exports the servers of a client/host.Host through a
// Specter router: an MCP gateway that follows the servers' changes. It is
// the one place where the client half and the server half of Specter
// meet, so that a program using only the client imports no server.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// Mount re-exports the servers' tools, prompts and resources through a
// Specter router, tools and prompts under their "server.name" names and
// resources at their own URIs: requests are forwarded to the servers and
// their results passed back as they are, with the progress of tool calls.
// Tools keep their MCP Apps metadata (_meta.ui: the UI resource, as the
// Host names it, and the visibility, so that app-only tools stay
// app-only), and the UI resources the tools link to are re-exported with
// them, at their Host URIs (ui://server/…). When a server's list
// changes, its declarations on r are replaced, and r tells its own
// clients; a storm of list_changed costs two refetches per server and
// kind (the one in flight and one pending), not one each. Items r
// refuses to declare (a tool without a usable input schema, say) are
// skipped, and reported in the returned error; the rest are mounted.
func Mount(ctx context.Context, h *host.Host, r *specter.Router) error {
	g := &gateway{h: h, r: r, declared: map[string][]declared{}}
	var errs []error
	for _, name := range h.Servers() {
		for _, kind := range []string{mcp.NotificationToolsChanged, mcp.NotificationPromptsChanged, mcp.NotificationResourcesChanged} {
			errs = append(errs, g.sync(ctx, name, kind))
		}
	}
	h.Watch(func(ctx context.Context, server, notification string) { _ = g.sync(ctx, server, notification) })
	return errors.Join(errs...)
}

// gateway is one Mount: what it declared on its router, per server.
type gateway struct {
	h *host.Host
	r *specter.Router

	mu       sync.Mutex // one sync at a time
	declared map[string][]declared
}

type declared struct {
	kind     string // the list_changed notification of its kind
	name     string // a resource's URI
	resource bool   // a UI resource, declared with the tools that link to it
}

// sync declares a server's current tools or prompts on the router in
// place of those declared before.
func (g *gateway) sync(ctx context.Context, server, notification string) error {
	var decls []func() error
	var names []declared
	switch notification {
	case mcp.NotificationToolsChanged:
		tools, err := g.h.ServerTools(ctx, server)
		if err != nil {
			return err
		}
		uis := map[string]bool{}
		for _, t := range tools {
			names = append(names, declared{kind: notification, name: t.Name})
			decls = append(decls, func() error { return g.tool(t) })
			if ui := mcp.ToolUI(t.Meta); ui != nil && strings.HasPrefix(ui.ResourceURI, mcp.UIScheme) && !uis[ui.ResourceURI] {
				uis[ui.ResourceURI] = true
				names = append(names, declared{kind: notification, name: ui.ResourceURI, resource: true})
				decls = append(decls, func() error { return g.ui(ctx, server, ui.ResourceURI) })
			}
		}
	case mcp.NotificationPromptsChanged:
		prompts, err := g.h.ServerPrompts(ctx, server)
		if err != nil {
			return err
		}
		for _, p := range prompts {
			names = append(names, declared{kind: notification, name: p.Name})
			decls = append(decls, func() error { return g.prompt(p) })
		}
	case mcp.NotificationResourcesChanged:
		resources, err := g.h.ServerResources(ctx, server)
		if err != nil {
			return err
		}
		c := g.h.Client(server)
		for _, r := range resources {
			if strings.HasPrefix(r.URI, mcp.UIScheme) {
				continue // declared with the tools that link to it
			}
			names = append(names, declared{kind: notification, name: r.URI})
			decls = append(decls, func() error { return g.resource(c, r) })
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
		switch {
		case d.resource:
			g.r.RemoveResource(d.name)
		case d.kind == mcp.NotificationToolsChanged:
			g.r.RemoveTool(d.name)
		case d.kind == mcp.NotificationPromptsChanged:
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
		kept = append(kept, names[i])
	}
	g.declared[server] = kept
	return errors.Join(errs...)
}

// declare runs a declaration, turning the router's panic over a bad one
// into an error.
func declare(kind, name string, f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("gateway: %s %s: %v", kind, name, v)
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
	if meta := uiMeta(t.Meta); meta != nil {
		opts = append(opts, specter.Meta(meta))
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

// resource re-exports a resource of the server c speaks to at its URI
// (r's name is already "server.name"). A URI another server already
// declared on the router is refused, and reported.
func (g *gateway) resource(c *client.Client, r mcp.Resource) error {
	opts := []specter.Option{specter.Name(r.Name), specter.Description(orDefault(r.Description, "Resource "+r.URI))}
	if r.MIMEType != "" {
		opts = append(opts, specter.MIMEType(r.MIMEType))
	}
	return declare("resource", r.URI, func() {
		g.r.Resource(r.URI, func(_ specter.Params, _ *specter.Request, ctx *specter.Context) specter.Result {
			res, err := c.ReadResource(ctx, r.URI)
			if err != nil {
				return specter.Error(err)
			}
			return specter.Reply(res)
		}, opts...)
	})
}

// ui re-exports the UI resource at uri (a Host URI) that tools of server
// link to, with the _meta.ui the server lists it with, if any; reads go
// to the server through the Host.
func (g *gateway) ui(ctx context.Context, server, uri string) error {
	opts := []specter.Option{specter.Name(server + host.Separator + strings.TrimPrefix(uri, mcp.UIScheme)),
		specter.Description("The UI of tools of " + server), specter.MIMEType(mcp.MIMETypeApp)}
	if resources, err := g.h.ServerResources(ctx, server); err == nil {
		// Servers may leave UI resources out of their lists.
		for _, r := range resources {
			if r.URI != uri {
				continue
			}
			if r.Description != "" {
				opts[1] = specter.Description(r.Description)
			}
			if meta := uiMeta(r.Meta); meta != nil {
				opts = append(opts, specter.Meta(meta))
			}
		}
	}
	return declare("resource", uri, func() {
		g.r.Resource(uri, func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			res, err := g.h.ReadResource(c, uri)
			if err != nil {
				return specter.Error(err)
			}
			return specter.Reply(res)
		}, opts...)
	})
}

// uiMeta is the MCP Apps part of a _meta (ui and the legacy
// ui/resourceUri), or nil.
func uiMeta(meta mcp.Meta) mcp.Meta {
	var out mcp.Meta
	for _, k := range []string{mcp.MetaUI, mcp.MetaUIResourceURI} {
		if v, ok := meta[k]; ok {
			if out == nil {
				out = mcp.Meta{}
			}
			out[k] = v
		}
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
