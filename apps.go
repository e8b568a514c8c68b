package specter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/specter-mcp/specter/mcp"
)

// UIPage is the HTML of a UI resource (Router.UI): a fixed page (HTML,
// HTMLFile), read once, or a template rendered for each caller
// (HTMLTemplate).
type UIPage struct {
	html string
	fsys fs.FS // with name: a file read at registration
	name string
	tmpl *template.Template
	data func(*Context) (any, error)
}

// HTML is a UI page given as a string: a whole HTML5 document.
func HTML(html string) UIPage { return UIPage{html: html} }

// HTMLFile is a UI page read from a file of fsys (an embed.FS, say) once,
// when the resource is declared.
func HTMLFile(fsys fs.FS, name string) UIPage { return UIPage{fsys: fsys, name: name} }

// HTMLTemplate is a UI page rendered for each read, with the data that
// data returns for the caller (data may be nil). Its output is escaped
// the way html/template escapes. Since the page depends on the caller,
// its reads are cached privately (cacheScope "private" on 2026-07-28)
// unless Cache says otherwise.
func HTMLTemplate(t *template.Template, data func(c *Context) (any, error)) UIPage {
	return UIPage{tmpl: t, data: data}
}

// load reads a fixed page, once, and checks that it is an HTML5 document.
func (p *UIPage) load() error {
	switch {
	case p.tmpl != nil:
		return nil
	case p.fsys != nil:
		b, err := fs.ReadFile(p.fsys, p.name)
		if err != nil {
			return fmt.Errorf("UI page: %w", err)
		}
		p.html = string(b)
	case p.name == "" && p.html == "" && p.data == nil:
		return errors.New("the UI page is empty: give HTML, HTMLFile or HTMLTemplate")
	}
	if !utf8.ValidString(p.html) {
		return errors.New("the UI page is not UTF-8")
	}
	head := strings.ToLower(strings.TrimLeft(strings.TrimPrefix(p.html, "\uFEFF"), " \t\r\n"))
	if !strings.HasPrefix(head, "<!doctype html") {
		return errors.New("the UI page must be an HTML5 document, beginning with <!DOCTYPE html>")
	}
	return nil
}

// render returns the page for the caller.
func (p *UIPage) render(c *Context) (string, error) {
	if p.tmpl == nil {
		return p.html, nil
	}
	var data any
	if p.data != nil {
		var err error
		if data, err = p.data(c); err != nil {
			return "", err
		}
	}
	var b bytes.Buffer
	if err := p.tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render UI page: %w", err)
	}
	return b.String(), nil
}

// UI declares a UI resource of the MCP Apps extension: an HTML page at a
// ui:// URI, with the MIME type text/html;profile=mcp-app, that hosts
// render in a sandboxed iframe for the tools linked to it (UIResource).
// CSP, Permissions, Domain and PrefersBorder set its _meta.ui, on its
// resources/list entry and on the content of every read; Description,
// Title, Name, Icons, Meta, Cache, Scopes and Policy apply as to any
// resource, and connect allows and hides it by its URI.
//
// The URI must be a fixed ui:// URI and the page an HTML5 document. The
// view in the page talks to its host over postMessage: package appview
// has a small script that does it. A mistake panics with a
// *DeclarationError naming the resource.
func (r *Router) UI(uri string, page UIPage, opts ...Option) {
	wrap := func(err error) *DeclarationError { return &DeclarationError{Kind: "resource", Name: uri, Err: err} }
	if !strings.HasPrefix(uri, mcp.UIScheme) {
		panic(wrap(fmt.Errorf("a UI resource's URI begins with %s", mcp.UIScheme)))
	}
	if err := page.load(); err != nil {
		panic(wrap(err))
	}
	first := []Option{MIMEType(mcp.MIMETypeApp)}
	if page.tmpl != nil {
		first = append(first, Cache(r.cfg.cache.ttl, mcp.CachePrivate))
	}
	opts = append(first, opts...)
	r.declare(kindResource, uri, nil, nil, func(d *declaration) Call {
		var meta mcp.Meta
		if d.ui != nil && d.ui.resourceSet {
			meta = mcp.Meta{mcp.MetaUI: d.ui.resource}
		}
		return func(req *Request, c *Context) Result {
			html, err := page.render(c)
			if err != nil {
				return Error(err)
			}
			// The content carries _meta.ui too: hosts read it there first.
			return Reply(mcp.ResourceContents{URI: req.Name, MIMEType: mcp.MIMETypeApp, Text: &html, Meta: meta})
		}
	}, opts)
}

// uiSpec is what the MCP Apps options set on a declaration.
type uiSpec struct {
	resource    mcp.UIResourceMeta
	resourceSet bool // a resource option was given
	tool        mcp.UIToolMeta
	toolSet     bool // UIResource or Visibility was given
}

func uiOption(f func(*uiSpec)) DeclOption {
	return declOption(func(d *declaration) {
		if d.ui == nil {
			d.ui = &uiSpec{}
		}
		f(d.ui)
	})
}

// UIResource links a tool to the UI resource at uri (declared with
// Router.UI): hosts that render MCP Apps show it with the tool's results.
// The tool's _meta gets ui.resourceUri and the legacy "ui/resourceUri"
// key that older hosts read. The tool's result should still make sense
// as text and structuredContent, for hosts without UI.
func UIResource(uri string) DeclOption {
	return uiOption(func(u *uiSpec) { u.tool.ResourceURI, u.toolSet = uri, true })
}

// Visibility says who may use a tool: mcp.VisibilityModel (the agent),
// mcp.VisibilityApp (the view of a UI, calling its own server), or both,
// the default. An app-only tool stays in tools/list with its visibility,
// so that hosts keep it from the model; calling it is an ordinary
// tools/call, filtered by connect, scopes, policies and middleware like
// any other: visibility hides nothing from a caller and allows nothing.
func Visibility(v ...mcp.UIVisibility) DeclOption {
	if v == nil {
		v = []mcp.UIVisibility{} // named, and empty: compileUI refuses it
	}
	return uiOption(func(u *uiSpec) { u.tool.Visibility, u.toolSet = v, true })
}

// CSP lists the origins a UI resource's view may reach, for the host's
// Content Security Policy: origins such as "https://api.example.com", or
// "https://*.example.com" for subdomains. Without it hosts let the view
// reach nothing outside itself.
func CSP(csp mcp.UICSP) DeclOption {
	return uiOption(func(u *uiSpec) { u.resource.CSP, u.resourceSet = &csp, true })
}

// Permissions asks the host for browser features (camera, microphone,
// geolocation, clipboard writes) for a UI resource's view. Hosts may
// refuse; the view should check before it uses one.
func Permissions(p mcp.UIPermissions) DeclOption {
	return uiOption(func(u *uiSpec) { u.resource.Permissions, u.resourceSet = &p, true })
}

// Domain asks the host for a dedicated sandbox origin for a UI resource's
// view (for OAuth callbacks or CORS allow-lists). Its format is each
// host's: read the host's documentation.
func Domain(domain string) DeclOption {
	return uiOption(func(u *uiSpec) { u.resource.Domain, u.resourceSet = domain, true })
}

// PrefersBorder asks the host to draw a border and background around a
// UI resource's view (true) or not (false). Hosts' defaults differ.
func PrefersBorder(v bool) DeclOption {
	return uiOption(func(u *uiSpec) { u.resource.PrefersBorder, u.resourceSet = &v, true })
}

// SupportsUI reports whether the caller's client renders MCP Apps: it
// declared the io.modelcontextprotocol/ui extension with the MIME type
// text/html;profile=mcp-app, in initialize (session era) or in the
// request's _meta (2026-07-28). It answers in connect as in handlers, so
// that a server can fall back: hide app-only tools, or reply in text.
func (c *Context) SupportsUI() bool { return c.clientCapabilities().SupportsUI() }

// ClientExtension returns the settings the caller's client declared for
// the extension id, and whether it declared it (see SupportsUI).
func (c *Context) ClientExtension(id string) (json.RawMessage, bool) {
	caps := c.clientCapabilities()
	if caps == nil {
		return nil, false
	}
	raw, ok := caps.Extensions[id]
	return raw, ok
}

// clientCapabilities are the caller's: the request's in a handler, those
// the transport found for connect, or nil when none are known.
func (c *Context) clientCapabilities() *mcp.ClientCapabilities {
	if c.req != nil {
		return &c.req.ClientCapabilities
	}
	return c.client
}
