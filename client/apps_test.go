package client_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// TestClientApps declares the UI extension and the application's own in
// both eras, and reads UI resources as a host does: _meta.ui from the
// content, else from the list entry, HTML from text or a base64 blob, and
// a clear error for what is no MCP App.
func TestClientApps(t *testing.T) {
	const page = "<!DOCTYPE html><title>v</title>"
	r := specter.NewRouter("apps", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	var declared []json.RawMessage
	r.Tool("caps", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		ui, _ := c.ClientExtension(mcp.ExtensionUI)
		own, _ := c.ClientExtension("com.example/audit")
		declared = append(declared, ui, own)
		return specter.Reply("ok")
	}, specter.Description("Reports the client's extensions"))
	r.UI("ui://content-meta", specter.HTML(page), specter.Description("x"), specter.PrefersBorder(true))
	// A resource handler of its own: its content has no _meta.ui, its list entry has one.
	r.Resource("ui://list-meta", func(_ specter.Params, req *specter.Request, _ *specter.Context) specter.Result {
		blob := base64.StdEncoding.EncodeToString([]byte(page))
		return specter.Reply(mcp.ResourceContents{URI: req.Name, MIMEType: mcp.MIMETypeApp, Blob: &blob})
	}, specter.Description("x"), specter.MIMEType(mcp.MIMETypeApp), specter.Meta(mcp.Meta{"ui": map[string]any{"domain": "v.example.com"}}))
	r.Resource("app://not-ui", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(page)
	}, specter.Description("x"), specter.MIMEType("text/html"))

	for _, version := range []string{"", mcp.Version20251125} {
		t.Run("version="+version, func(t *testing.T) {
			ctx := t.Context()
			c, err := client.Connect(ctx, client.InMemory(r.Handler()), &client.Options{Version: version, UI: true,
				Extensions: map[string]json.RawMessage{"com.example/audit": json.RawMessage(`{"level":2}`)}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close(context.Background()) })
			if _, ok := c.ServerCapabilities().Extensions[mcp.ExtensionUI]; !ok {
				t.Errorf("the server's extensions %v lack the UI", c.ServerCapabilities().Extensions)
			}
			declared = nil
			if _, err := c.CallTool(ctx, "caps", nil); err != nil {
				t.Fatal(err)
			}
			if len(declared) != 2 || string(declared[0]) != `{"mimeTypes":["text/html;profile=mcp-app"]}` || string(declared[1]) != `{"level":2}` {
				t.Errorf("the server saw the extensions %s", declared)
			}

			for uri, want := range map[string]string{"ui://content-meta": `{"prefersBorder":true}`, "ui://list-meta": `{"domain":"v.example.com"}`} {
				app, err := c.ReadApp(ctx, uri)
				if err != nil {
					t.Fatalf("%s: %v", uri, err)
				}
				meta, _ := json.Marshal(app.Meta)
				if app.URI != uri || app.HTML != page || string(meta) != want {
					t.Errorf("%s: %+v, _meta.ui %s, want %s", uri, app, meta, want)
				}
			}
			for _, uri := range []string{"app://not-ui", "ui://missing"} {
				if _, err := c.ReadApp(ctx, uri); err == nil || (uri == "app://not-ui") != errors.Is(err, client.ErrNotApp) {
					t.Errorf("%s: %v", uri, err)
				}
			}
			if app, err := c.ToolApp(ctx, mcp.Tool{Name: "caps"}); app != nil || err != nil {
				t.Errorf("a tool without UI: %+v, %v", app, err)
			}
		})
	}
}
