package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/gateway"
	"github.com/specter-mcp/specter/mcp"
)

// uiServer is a server with a UI resource at ui://dashboard (which both
// servers of the test have, with different pages), a tool showing it and
// an app-only tool. listed says whether resources/list lists the UI
// resource: servers may leave it out.
func uiServer(t *testing.T, name string, listed bool) http.Handler {
	r := specter.NewRouter(name, "1.0.0", specter.Logger(zerolog.Nop()))
	page := "<!DOCTYPE html><title>" + name + "</title>"
	if listed {
		r.UI("ui://dashboard", specter.HTML(page), specter.Description("The dashboard of "+name),
			specter.CSP(mcp.UICSP{ConnectDomains: []string{"https://" + name + ".example.com"}}))
	} else {
		// Unlisted: a plain resource handler answering the read, hidden
		// from lists by connect.
		r.Resource("ui://dashboard", func(_ specter.Params, req *specter.Request, _ *specter.Context) specter.Result {
			return specter.Reply(mcp.ResourceContents{URI: req.Name, MIMEType: mcp.MIMETypeApp, Text: &page,
				Meta: mcp.Meta{"ui": mcp.UIResourceMeta{PrefersBorder: new(true)}}})
		}, specter.Description("x"), specter.MIMEType(mcp.MIMETypeApp))
		r.Connect(func(c *specter.Context) error {
			if c.HTTPRequest().Header.Get("X-Listing") != "" {
				c.HideResources("ui://dashboard")
			}
			return nil
		})
	}
	r.Tool("show", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(name + " dashboard")
	}, specter.Description("Show the dashboard"), specter.UIResource("ui://dashboard"))
	r.Tool("save", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(name + " saved")
	}, specter.Description("Save"), specter.UIResource("ui://dashboard"), specter.Visibility(mcp.VisibilityApp))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	if listed {
		return r.Handler()
	}
	// Marks the resources/list requests for connect, in both eras.
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if bytes.Contains(body, []byte(`"method":"resources/list"`)) {
			req.Header.Set("X-Listing", "1")
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		r.ServeHTTP(w, req)
	})
}

// TestHostApps: two servers both have ui://dashboard. The Host names each
// server's as ui://<server>/dashboard, links the tools to it, reads it
// from the right server with its _meta.ui, and keeps the app-only tool's
// visibility; the gateway re-exports all of it.
func TestHostApps(t *testing.T) {
	for _, version := range []string{"", mcp.Version20251125} {
		t.Run("version="+version, func(t *testing.T) {
			ctx := t.Context()
			opts := &client.Options{Version: version, UI: true}
			h, err := host.New(ctx, []host.Server{
				{Name: "a", Transport: client.InMemory(uiServer(t, "alpha", true)), Options: opts},
				{Name: "b", Transport: client.InMemory(uiServer(t, "beta", false)), Options: opts},
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = h.Close(context.Background()) })

			tools, err := h.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			meta := map[string]string{}
			for _, tool := range tools {
				b, _ := json.Marshal(tool.Meta)
				meta[tool.Name] = string(b)
			}
			for name, want := range map[string]string{
				"a.show": `{"ui":{"resourceUri":"ui://a/dashboard"},"ui/resourceUri":"ui://a/dashboard"}`,
				"a.save": `{"ui":{"resourceUri":"ui://a/dashboard","visibility":["app"]},"ui/resourceUri":"ui://a/dashboard"}`,
				"b.show": `{"ui":{"resourceUri":"ui://b/dashboard"},"ui/resourceUri":"ui://b/dashboard"}`,
			} {
				if meta[name] != want {
					t.Errorf("%s _meta %s, want %s", name, meta[name], want)
				}
			}
			resources, err := h.Resources(ctx)
			if got := names(t, resources, err, func(r mcp.Resource) string { return r.URI }); !slices.Equal(got, []string{"ui://a/dashboard"}) {
				t.Errorf("resources %v", got)
			}

			for _, tc := range []struct {
				tool, html, meta string
			}{
				{"a.show", "<!DOCTYPE html><title>alpha</title>", `{"csp":{"connectDomains":["https://alpha.example.com"]}}`},
				{"b.show", "<!DOCTYPE html><title>beta</title>", `{"prefersBorder":true}`},
			} {
				i := slices.IndexFunc(tools, func(tool mcp.Tool) bool { return tool.Name == tc.tool })
				app, err := h.ToolApp(ctx, tools[i])
				if err != nil {
					t.Fatalf("%s: %v", tc.tool, err)
				}
				got, _ := json.Marshal(app.Meta)
				if app.HTML != tc.html || string(got) != tc.meta || app.URI != mcp.ToolUI(tools[i].Meta).ResourceURI {
					t.Errorf("%s app %+v meta %s", tc.tool, app, got)
				}
			}
			if _, err := h.ReadResource(ctx, "ui://dashboard"); err == nil {
				t.Error("a UI resource URI naming no server was read")
			}

			// The gateway: the tools keep their UI, the app-only one its
			// visibility, and the UI resources are served at the Host's URIs.
			gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
			if err := gateway.Mount(ctx, h, gw); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = gw.Shutdown(context.Background()) })
			gc, err := client.Connect(ctx, client.InMemory(gw.Handler()), &client.Options{Version: version, UI: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = gc.Close(context.Background()) })
			if _, ok := gc.ServerCapabilities().Extensions[mcp.ExtensionUI]; !ok {
				t.Error("the gateway does not declare the UI extension")
			}
			listed, err := gc.ListTools(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range listed.Tools {
				b, _ := json.Marshal(tool.Meta)
				if want, ok := meta[tool.Name]; ok && string(b) != want {
					t.Errorf("gateway %s _meta %s, want %s", tool.Name, b, want)
				}
			}
			for _, tc := range []struct{ tool, html string }{{"a.show", "<!DOCTYPE html><title>alpha</title>"}, {"b.save", "<!DOCTYPE html><title>beta</title>"}} {
				i := slices.IndexFunc(listed.Tools, func(tool mcp.Tool) bool { return tool.Name == tc.tool })
				if i < 0 {
					t.Fatalf("the gateway does not list %s", tc.tool)
				}
				app, err := gc.ToolApp(ctx, listed.Tools[i])
				if err != nil || app.HTML != tc.html || app.Meta == nil {
					t.Errorf("gateway %s app %+v, %v", tc.tool, app, err)
				}
			}
			if got := text(t)(gc.CallTool(ctx, "b.save", nil)); got != "beta saved" {
				t.Errorf("gateway b.save: %q", got)
			}
		})
	}
}
