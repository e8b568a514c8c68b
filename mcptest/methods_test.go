package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// catalogRouter declares one of each kind of item.
func catalogRouter(t *testing.T) *specter.Router {
	r := specter.NewRouter("catalog", "0.1", specter.Logger(zerolog.Nop()))
	shutdown(t, r)
	r.Tool("echo", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(p.String("text"))
	}, specter.Description("Echoes"), params.String("text", params.Required()))
	r.Tool("count", count, specter.Description("Counts"))
	r.Prompt("ask", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(specter.UserMessage("Tell me about " + p.String("topic")))
	}, specter.Description("Asks"), params.String("topic", params.Required()))
	r.Resource("app://about", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("about")
	}, specter.Description("About"), specter.MIMEType("text/plain"))
	r.Resource("app://items/:id", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("item " + p.String("id"))
	}, specter.Description("An item"), specter.MIMEType("text/plain"))
	return r
}

// count reports progress three times, then answers "counted".
func count(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
	for i := range 3 {
		if err := c.Progress(float64(i), 3, ""); err != nil {
			return specter.Error(err)
		}
	}
	return specter.Reply("counted")
}

// eras returns a client of each era for the endpoint c serves.
func eras(t *testing.T, srv interface{ Client() *http.Client }, c *Client) map[string]Caller {
	t.Helper()
	if _, err := c.Initialize(context.Background(), mcp.LatestSessionVersion); err != nil {
		t.Fatal(err)
	}
	m := NewStatelessClient(c.URL)
	m.HTTP, m.Header = srv.Client(), c.Header.Clone()
	return map[string]Caller{"session": c, "2026-07-28": m}
}

// Both clients give the same answers, in the same types, to the same
// calls; only the 2026-07-28 fields of StatelessResult differ.
func TestCallerErasAgree(t *testing.T) {
	srv, c := NewServer(t, catalogRouter(t).Handler(), "/mcp")
	ctx := context.Background()
	got := map[string]string{}
	for era, cl := range eras(t, srv, c) {
		tools, err := cl.ListTools(ctx)
		if err != nil || len(tools) != 2 {
			t.Fatalf("%s: tools/list %v %v", era, tools, err)
		}
		res, _, err := cl.CallTool(ctx, "echo", map[string]any{"text": "hi"})
		if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hi" {
			t.Fatalf("%s: tools/call %+v %v", era, res, err)
		}
		if _, _, err := cl.CallTool(ctx, "nope", nil); !errors.As(err, new(*jsonrpc.Error)) {
			t.Errorf("%s: an unknown tool: %v, want a JSON-RPC error", era, err)
		}
		prompts, err := cl.ListPrompts(ctx)
		if err != nil || len(prompts) != 1 {
			t.Fatalf("%s: prompts/list %v %v", era, prompts, err)
		}
		prompt, _, err := cl.GetPrompt(ctx, "ask", map[string]string{"topic": "owls"})
		if err != nil || len(prompt.Messages) != 1 || prompt.Messages[0].Content.(*mcp.TextContent).Text != "Tell me about owls" {
			t.Fatalf("%s: prompts/get %+v %v", era, prompt, err)
		}
		resources, err := cl.ListResources(ctx)
		if err != nil || len(resources) != 1 {
			t.Fatalf("%s: resources/list %v %v", era, resources, err)
		}
		templates, err := cl.ListResourceTemplates(ctx)
		if err != nil || len(templates) != 1 {
			t.Fatalf("%s: resources/templates/list %v %v", era, templates, err)
		}
		read, _, err := cl.ReadResource(ctx, "app://items/7")
		if err != nil || len(read.Contents) != 1 || read.Contents[0].Text == nil || *read.Contents[0].Text != "item 7" {
			t.Fatalf("%s: resources/read %+v %v", era, read, err)
		}
		res.StatelessResult, prompt.StatelessResult, read.ResultBase = StatelessResult{}, StatelessResult{}, mcp.ResultBase{}
		b, _ := json.Marshal([]any{tools, res, prompts, prompt, resources, templates, read})
		got[era] = string(b)
	}
	if got["session"] != got["2026-07-28"] {
		t.Errorf("the eras disagree:\nsession    %s\n2026-07-28 %s", got["session"], got["2026-07-28"])
	}
}

// CallTool carries _meta: a progress token brings progress notifications
// in both eras.
func TestCallToolProgressToken(t *testing.T) {
	srv, c := NewServer(t, catalogRouter(t).Handler(), "/mcp")
	for era, cl := range eras(t, srv, c) {
		res, resp, err := cl.CallTool(context.Background(), "count", nil, ProgressToken("p-1"))
		if err != nil || res.Content[0].(*mcp.TextContent).Text != "counted" {
			t.Fatalf("%s: %+v %v", era, res, err)
		}
		if len(resp.Notifications) != 3 {
			t.Fatalf("%s: %d notifications, want 3 progress notifications", era, len(resp.Notifications))
		}
		for _, n := range resp.Notifications {
			var p struct {
				ProgressToken string `json:"progressToken"`
			}
			if n.Method != "notifications/progress" || json.Unmarshal(n.Params, &p) != nil || p.ProgressToken != "p-1" {
				t.Errorf("%s: %s %s, want progress for p-1", era, n.Method, n.Params)
			}
		}
		// Without the token, no progress is sent.
		if _, resp, err := cl.CallTool(context.Background(), "count", nil); err != nil || len(resp.Notifications) != 0 {
			t.Errorf("%s without a progress token: %d notifications, %v", era, len(resp.Notifications), err)
		}
	}
}

// NewServer serves a whole Echo app: its middleware, its well-known URLs
// and its authentication apply, in both eras.
func TestNewServerServesAnEchoApp(t *testing.T) {
	dev := auth.NewDevIssuer("http://127.0.0.1/mcp")
	cfg := dev.Config()
	e := echo.New()
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Response().Header().Set("X-App", "yes")
			return next(c)
		}
	})
	auth.MountMetadata(e, cfg)
	catalogRouter(t).Mount(e.Group("/mcp", auth.JWT(cfg)))
	srv, c := NewServer(t, e, "/mcp")

	resp, err := srv.Client().Get(srv.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-App") != "yes" || !json.Valid(body) {
		t.Errorf("metadata: status %d, X-App %q, %s", resp.StatusCode, resp.Header.Get("X-App"), body)
	}
	if _, err := c.Initialize(context.Background(), mcp.LatestSessionVersion); err == nil {
		t.Error("initialize without a token succeeded")
	}
	c.Header.Set("Authorization", "Bearer "+dev.Token("ada"))
	for era, cl := range eras(t, srv, c) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, resp, err := cl.CallTool(ctx, "echo", map[string]any{"text": era})
		cancel()
		if err != nil || res.Content[0].(*mcp.TextContent).Text != era || resp.Header.Get("X-App") != "yes" {
			t.Errorf("%s: %+v, X-App %q, %v", era, res, resp.Header.Get("X-App"), err)
		}
	}
}
