package host

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"strings"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// UI resources (MCP Apps) are namespaced by server, as tools are: two
// servers may both have ui://dashboard, and a tool's UI must be read from
// its own server. A Host lists and links them as ui://<server>/<the rest
// of the server's URI>: ui://dashboard of server "notes" is
// ui://notes/dashboard. Other URIs stay as their servers gave them.

// uiURI is the Host's URI of a server's UI resource; other URIs pass.
func uiURI(server, uri string) string {
	rest, ok := strings.CutPrefix(uri, mcp.UIScheme)
	if !ok {
		return uri
	}
	return mcp.UIScheme + url.PathEscape(server) + "/" + rest
}

// serverUIURI splits a Host's UI resource URI into its server and the
// server's own URI.
func serverUIURI(uri string) (server, original string, ok bool) {
	rest, ok := strings.CutPrefix(uri, mcp.UIScheme)
	if !ok {
		return "", "", false
	}
	escaped, rest, ok := strings.Cut(rest, "/")
	if !ok || rest == "" {
		return "", "", false
	}
	server, err := url.PathUnescape(escaped)
	if err != nil {
		return "", "", false
	}
	return server, mcp.UIScheme + rest, true
}

// namespaceUI rewrites the UI resource a tool links to (_meta.ui.resourceUri
// and the legacy "ui/resourceUri") to the Host's URI, in a copy of the
// tool's _meta; its visibility stays as the server set it.
func namespaceUI(server string, meta mcp.Meta) mcp.Meta {
	ui := mcp.ToolUI(meta)
	if ui == nil || !strings.HasPrefix(ui.ResourceURI, mcp.UIScheme) {
		return meta
	}
	out := maps.Clone(meta)
	if m, ok := meta[mcp.MetaUI].(map[string]any); ok {
		m = maps.Clone(m)
		if _, ok := m["resourceUri"]; ok {
			m["resourceUri"] = uiURI(server, ui.ResourceURI)
		}
		out[mcp.MetaUI] = m
	}
	if _, ok := meta[mcp.MetaUIResourceURI]; ok {
		out[mcp.MetaUIResourceURI] = uiURI(server, ui.ResourceURI)
	}
	return out
}

// namespaceContents rewrites the URIs of a server's UI resource contents
// to the Host's, in a copy.
func namespaceContents(server string, res *mcp.ReadResourceResult) *mcp.ReadResourceResult {
	out := *res
	out.Contents = make([]mcp.ResourceContents, len(res.Contents))
	for i, c := range res.Contents {
		c.URI = uiURI(server, c.URI)
		out.Contents[i] = c
	}
	return &out
}

// ToolApp reads the UI a tool of ServerTools or Tools links to, from its
// server (see client.Client.ToolApp); nil, nil for a tool linked to none.
// Keep the tools whose visibility leaves out the model
// (mcp.ToolUI(t.Meta).VisibleTo(mcp.VisibilityModel) is false) out of the
// model's list, and let a view call only tools of its own server that are
// visible to the app.
func (h *Host) ToolApp(ctx context.Context, tool mcp.Tool, opts ...client.CallOption) (*client.App, error) {
	ui := mcp.ToolUI(tool.Meta)
	if ui == nil || ui.ResourceURI == "" {
		return nil, nil
	}
	server, original, ok := serverUIURI(ui.ResourceURI)
	if !ok {
		return nil, fmt.Errorf("host: %s is not the UI resource of a server of this Host", ui.ResourceURI)
	}
	m, err := h.member(server)
	if err != nil {
		return nil, err
	}
	app, err := m.c.ReadApp(ctx, original, opts...)
	if err != nil {
		return nil, fmt.Errorf("host: server %s: %w", server, err)
	}
	app.URI = ui.ResourceURI
	return app, nil
}
