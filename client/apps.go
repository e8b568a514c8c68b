package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/specter-mcp/specter/mcp"
)

// uiCapability is what Options.UI declares.
var uiCapability = json.RawMessage(`{"mimeTypes":["` + mcp.MIMETypeApp + `"]}`)

// App is the UI a tool is linked to (MCP Apps), as a host renders it: the
// HTML of its ui:// resource and the resource's _meta.ui.
type App struct {
	URI  string
	HTML string
	// Meta is the content item's _meta.ui or else the resources/list
	// entry's, as the extension says hosts read it; nil when neither
	// has one.
	Meta *mcp.UIResourceMeta
}

// ErrNotApp is wrapped by ToolApp's error when the tool's resource is no
// MCP App: not a ui:// URI, another MIME type, or not one HTML document.
var ErrNotApp = errors.New("mcp client: not an MCP App resource")

// ToolApp reads the UI resource a tool is linked to (its _meta.ui.resourceUri,
// or the legacy "ui/resourceUri"); nil, nil for a tool linked to none.
// Render the HTML in a sandboxed iframe with a Content Security Policy
// built from Meta.CSP, and keep tools whose visibility leaves out the
// model (mcp.ToolUI(t.Meta).VisibleTo) out of the model's list.
func (c *Client) ToolApp(ctx context.Context, tool mcp.Tool, opts ...CallOption) (*App, error) {
	ui := mcp.ToolUI(tool.Meta)
	if ui == nil || ui.ResourceURI == "" {
		return nil, nil
	}
	return c.ReadApp(ctx, ui.ResourceURI, opts...)
}

// ReadApp reads the UI resource at uri (see ToolApp).
func (c *Client) ReadApp(ctx context.Context, uri string, opts ...CallOption) (*App, error) {
	if !strings.HasPrefix(uri, mcp.UIScheme) {
		return nil, fmt.Errorf("%w: %s is not a %s URI", ErrNotApp, uri, mcp.UIScheme)
	}
	res, err := c.ReadResource(ctx, uri, opts...)
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 {
		return nil, fmt.Errorf("%w: %s has %d contents, want one HTML document", ErrNotApp, uri, len(res.Contents))
	}
	item := res.Contents[0]
	if item.MIMEType != mcp.MIMETypeApp {
		return nil, fmt.Errorf("%w: %s has the MIME type %q, want %s", ErrNotApp, uri, item.MIMEType, mcp.MIMETypeApp)
	}
	app := &App{URI: uri, Meta: mcp.ResourceUI(item.Meta)}
	switch {
	case item.Text != nil:
		app.HTML = *item.Text
	case item.Blob != nil:
		b, err := base64.StdEncoding.DecodeString(*item.Blob)
		if err != nil || !utf8.Valid(b) {
			return nil, fmt.Errorf("%w: %s: its blob is not base64 of UTF-8 HTML", ErrNotApp, uri)
		}
		app.HTML = string(b)
	default:
		return nil, fmt.Errorf("%w: %s has neither text nor blob", ErrNotApp, uri)
	}
	if app.Meta == nil {
		// The listing's _meta.ui is the fallback; servers may leave UI
		// resources out of the list.
		for r, err := range c.Resources(ctx) {
			if err != nil {
				return nil, err
			}
			if r.URI == uri {
				app.Meta = mcp.ResourceUI(r.Meta)
				break
			}
		}
	}
	return app, nil
}
