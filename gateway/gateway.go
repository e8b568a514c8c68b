// Package gateway re-exports the servers of a client/host.Host through a
// Specter router: an MCP gateway that follows the servers' changes. It is
// the one place where the client half and the server half of Specter
// meet, so that a program using only the client imports no server.
//
// Tools and prompts are re-exported under a prefix (by default
// "server."; see Prefix and NoPrefix), with their titles, icons and
// annotations; tools may be reshaped on the way (Transform). Resources
// and resource templates keep their URIs, and are read and completed
// through the gateway. The servers' requests made during a call
// (sampling, elicitation, roots) are relayed to the gateway client that
// made the call when the Host's servers use Relay's handlers; progress
// follows its call.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/yosida95/uritemplate/v3"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/transform"
)

// Mount re-exports the servers' tools, prompts, resources and resource
// templates through a Specter router: requests are forwarded to the
// servers and their results passed back as they are (tool results
// through a transformation's Result), with the progress of tool calls.
// Completions of prompt arguments and template variables are forwarded
// to servers that offer completions. Tools keep their MCP Apps metadata
// (_meta.ui: the UI resource, as the Host names it, and the visibility,
// so that app-only tools stay app-only), and the UI resources the tools
// link to are re-exported with them, at their Host URIs (ui://server/…).
// When a server's list changes, its declarations on r are replaced, and
// r tells its own clients. Items r refuses to declare (a tool without a
// usable input schema, a name another server took) are skipped, and
// reported in the returned error; the rest are mounted.
func Mount(ctx context.Context, h *host.Host, r *specter.Router, opts ...Option) error {
	g := &gateway{h: h, r: r, cfg: newConfig(opts), declared: map[string][]declared{}}
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
	h   *host.Host
	r   *specter.Router
	cfg *config

	mu       sync.Mutex // one sync at a time
	declared map[string][]declared
}

type declared struct {
	kind     string // the list_changed notification of its kind
	name     string // a resource's URI or template
	resource bool   // a resource, declared with the tools that link to it or as a template
}

// sync declares a server's current tools, prompts or resources on the
// router in place of those declared before.
func (g *gateway) sync(ctx context.Context, server, notification string) error {
	var decls []func() error
	var names []declared
	var errs []error
	c := g.h.Client(server)
	switch notification {
	case mcp.NotificationToolsChanged:
		tools, err := g.h.ServerTools(ctx, server)
		if err != nil {
			return err
		}
		uis := map[string]bool{}
		for _, t := range tools {
			t.Name = strings.TrimPrefix(t.Name, server+host.Separator)
			x, err := g.transformed(server, t)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			name := g.cfg.prefix(server) + x.Tool().Name
			names = append(names, declared{kind: notification, name: name})
			decls = append(decls, func() error { return g.tool(c, name, x) })
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
			p.Name = strings.TrimPrefix(p.Name, server+host.Separator)
			name := g.cfg.prefix(server) + p.Name
			names = append(names, declared{kind: notification, name: name})
			decls = append(decls, func() error { return g.prompt(c, name, p) })
		}
	case mcp.NotificationResourcesChanged:
		resources, err := g.h.ServerResources(ctx, server)
		if err != nil {
			return err
		}
		for _, r := range resources {
			if strings.HasPrefix(r.URI, mcp.UIScheme) {
				continue // declared with the tools that link to it
			}
			names = append(names, declared{kind: notification, name: r.URI, resource: true})
			decls = append(decls, func() error { return g.resource(c, r) })
		}
		templates, err := g.h.ServerResourceTemplates(ctx, server)
		if err != nil {
			return err
		}
		for _, t := range templates {
			names = append(names, declared{kind: notification, name: t.URITemplate, resource: true})
			decls = append(decls, func() error { return g.template(c, t) })
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
		default:
			g.r.RemovePrompt(d.name)
		}
	}
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

// transformed applies the server's transformation of t, if any; a tool
// without one passes through as it is.
func (g *gateway) transformed(server string, t mcp.Tool) (*transform.Transformed, error) {
	x, err := transform.Apply(t, g.cfg.transforms[server][t.Name])
	if err != nil {
		return nil, fmt.Errorf("gateway: server %s: %w", server, err)
	}
	return x, nil
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

// described are the options every re-exported item carries.
func described(title, description, fallback string, icons []mcp.Icon) []specter.Option {
	opts := []specter.Option{specter.Description(orDefault(description, fallback))}
	if title != "" {
		opts = append(opts, specter.Title(title))
	}
	if len(icons) > 0 {
		opts = append(opts, specter.Icons(icons...))
	}
	return opts
}

// tool re-exports the tool x of the server c speaks to as name.
func (g *gateway) tool(c *client.Client, name string, x *transform.Transformed) error {
	t := x.Tool()
	opts := append(described(t.Title, t.Description, "Tool "+name, t.Icons), specter.InputSchema(t.InputSchema))
	if len(t.OutputSchema) > 0 {
		opts = append(opts, specter.OutputSchema(t.OutputSchema))
	}
	if t.Annotations != nil {
		opts = append(opts, specter.Annotations(*t.Annotations))
	}
	if meta := uiMeta(t.Meta); meta != nil {
		opts = append(opts, specter.Meta(meta))
	}
	return declare("tool", name, func() {
		g.r.Tool(name, func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
			args, err := x.Arguments(p)
			if err != nil {
				return specter.Error(specter.NewToolError(err.Error()))
			}
			return specter.NoReply(func(s *specter.Stream) specter.Result {
				// The server's progress is the gateway client's (when it
				// asked for progress: Stream.Progress checks).
				progress := client.WithProgress(func(pp mcp.ProgressParams) {
					var total float64
					if pp.Total != nil {
						total = *pp.Total
					}
					_ = s.Progress(pp.Progress, total, pp.Message)
				})
				ctx, end := relayed(s, s)
				res, err := c.CallTool(ctx, x.Original(), args, progress)
				if pending := end(); pending != nil {
					return specter.Error(pending)
				}
				if err == nil {
					res, err = x.Result(s, res)
				}
				if err != nil {
					return specter.Error(err)
				}
				return specter.Reply(res)
			})
		}, opts...)
	})
}

// prompt re-exports the prompt p of the server c speaks to as name.
func (g *gateway) prompt(c *client.Client, name string, p mcp.Prompt) error {
	opts := described(p.Title, p.Description, "Prompt "+name, p.Icons)
	completes := c.ServerCapabilities().Completions != nil
	for _, a := range p.Arguments {
		var o []params.Option
		if a.Description != "" {
			o = append(o, params.Description(a.Description))
		}
		if a.Required {
			o = append(o, params.Required())
		}
		opts = append(opts, params.String(a.Name, o...))
		if completes {
			opts = append(opts, specter.Complete(a.Name, completer(c, mcp.CompleteRef{Type: mcp.RefPrompt, Name: p.Name}, a.Name)))
		}
	}
	return declare("prompt", name, func() {
		g.r.Prompt(name, func(v specter.Params, _ *specter.Request, sc *specter.Context) specter.Result {
			args := make(map[string]string, len(v))
			for k := range v {
				args[k] = v.String(k)
			}
			ctx, end := relayed(sc, sc)
			res, err := c.GetPrompt(ctx, p.Name, args)
			if pending := end(); pending != nil {
				return specter.Error(pending)
			}
			if err != nil {
				return specter.Error(err)
			}
			return specter.Reply(res.Messages)
		}, opts...)
	})
}

// completer forwards the completion of one argument of ref.
func completer(c *client.Client, ref mcp.CompleteRef, argument string) specter.Completer {
	return specter.CompleterFunc(func(ctx context.Context, value string, args map[string]string) ([]string, error) {
		p := mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteArgument{Name: argument, Value: value}}
		if len(args) > 0 {
			p.Context = &mcp.CompleteContext{Arguments: args}
		}
		res, err := c.Complete(ctx, p)
		if err != nil {
			return nil, err
		}
		return res.Completion.Values, nil
	})
}

// resource re-exports a resource of the server c speaks to at its URI
// (r's name is already "server.name"). A URI another server already
// declared on the router is refused, and reported.
func (g *gateway) resource(c *client.Client, r mcp.Resource) error {
	opts := append(described(r.Title, r.Description, "Resource "+r.URI, r.Icons), specter.Name(r.Name))
	if r.MIMEType != "" {
		opts = append(opts, specter.MIMEType(r.MIMEType))
	}
	return declare("resource", r.URI, func() {
		g.r.Resource(r.URI, func(_ specter.Params, _ *specter.Request, ctx *specter.Context) specter.Result {
			return read(ctx, c, r.URI)
		}, opts...)
	})
}

// template re-exports a resource template of the server c speaks to:
// reads of URIs it matches go to the server, and so do completions of
// its variables when the server offers completions.
func (g *gateway) template(c *client.Client, t mcp.ResourceTemplate) error {
	opts := append(described(t.Title, t.Description, "Resources "+t.URITemplate, t.Icons), specter.Name(t.Name))
	if t.MIMEType != "" {
		opts = append(opts, specter.MIMEType(t.MIMEType))
	}
	if c.ServerCapabilities().Completions != nil {
		if tmpl, err := uritemplate.New(t.URITemplate); err == nil {
			for _, v := range tmpl.Varnames() {
				opts = append(opts, specter.Complete(v, completer(c, mcp.CompleteRef{Type: mcp.RefResource, URI: t.URITemplate}, v)))
			}
		}
	}
	return declare("resource template", t.URITemplate, func() {
		g.r.Resource(t.URITemplate, func(_ specter.Params, req *specter.Request, ctx *specter.Context) specter.Result {
			return read(ctx, c, req.Name)
		}, opts...)
	})
}

func read(ctx context.Context, c *client.Client, uri string) specter.Result {
	res, err := c.ReadResource(ctx, uri)
	if err != nil {
		return specter.Error(err)
	}
	return specter.Reply(res)
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
