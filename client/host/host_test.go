package host_test

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/gateway"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// router is a Specter server named name with an "echo" tool that says
// which server answered, a "count" tool that reports progress, a "brief"
// prompt and a readme resource.
func router(t *testing.T, name string) *specter.Router {
	r := specter.NewRouter(name, "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("echo", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(name + " echoes " + p.String("text"))
	}, specter.Description("Echoes text"), params.String("text", params.Required()))
	r.Prompt("brief", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(name + " briefs on " + p.String("topic"))
	}, specter.Description("A briefing"), params.String("topic", params.Required()))
	r.Tool("count", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			for i := 1; i <= 3; i++ {
				_ = s.Progress(float64(i), 3, "")
			}
			return specter.Reply("counted")
		})
	}, specter.Description("Counts to three, with progress"))
	r.Resource("app://"+name+"/readme", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("read " + name)
	}, specter.Name("readme"), specter.Description("The readme"), specter.MIMEType("text/plain"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	return r
}

// text returns a check of a tool call's one text content.
func text(t *testing.T) func(*mcp.CallToolResult, error) string {
	return func(res *mcp.CallToolResult, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("result %+v", res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
}

func names[T any](t *testing.T, items []T, err error, name func(T) string) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		out = append(out, name(it))
	}
	sort.Strings(out)
	return out
}

func toolName(x mcp.Tool) string { return x.Name }

// eventually polls cond until it holds, or fails at the test's deadline;
// the list_changed notification travels on its own stream and comes when
// it comes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	done := mcptest.Context(t).Done()
	for !cond() {
		select {
		case <-done:
			t.Fatalf("the test's deadline came before %s", what)
		case <-time.After(20 * time.Millisecond): // each try lists the tools
		}
	}
}

// TestHost aggregates two Specter servers in each era: namespaced lists,
// routed calls and reads, a list refreshed on list_changed within a TTL that would
// otherwise keep it, and a gateway router re-exporting both that follows
// the change too.
func TestHost(t *testing.T) {
	for _, version := range []string{"", mcp.Version20251125} {
		t.Run("version="+version, func(t *testing.T) {
			ctx := t.Context()
			a, b := router(t, "alpha"), router(t, "beta")
			changes := make(chan string, 16)
			h, err := host.New(ctx, []host.Server{
				{Name: "a", Transport: client.InMemory(a.Handler()), Options: &client.Options{Version: version}},
				{Name: "b", Transport: client.InMemory(b.Handler()), Options: &client.Options{Version: version}},
			}, &host.Options{TTL: time.Hour, OnChange: func(server, n string) { changes <- server + " " + n }})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = h.Close(context.Background()) })

			tools, err := h.Tools(ctx)
			if got := names(t, tools, err, toolName); !slices.Equal(got, []string{"a.count", "a.echo", "b.count", "b.echo"}) {
				t.Fatalf("tools %v", got)
			}
			if got := text(t)(h.CallTool(ctx, "b.echo", map[string]string{"text": "hi"})); got != "beta echoes hi" {
				t.Errorf("b.echo: %q", got)
			}
			p, err := h.GetPrompt(ctx, "a.brief", map[string]string{"topic": "MCP"})
			if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "alpha briefs on MCP" {
				t.Errorf("a.brief: %+v %v", p, err)
			}
			resources, err := h.Resources(ctx)
			if got := names(t, resources, err, func(r mcp.Resource) string { return r.Name + " " + r.URI }); !slices.Equal(got, []string{"a.readme app://alpha/readme", "b.readme app://beta/readme"}) {
				t.Errorf("resources %v", got)
			}
			rr, err := h.ReadResource(ctx, "app://beta/readme")
			if err != nil || *rr.Contents[0].Text != "read beta" {
				t.Errorf("read: %+v %v", rr, err)
			}
			if _, err := h.CallTool(ctx, "c.echo", nil); err == nil {
				t.Error("a call to an unknown server was routed")
			}

			// The gateway: a third router re-exporting both servers.
			gw := router(t, "gateway")
			gw.RemoveTool("echo")
			gw.RemoveTool("count")
			gw.RemovePrompt("brief")
			gw.RemoveResource("app://gateway/readme")
			if err := gateway.Mount(ctx, h, gw); err != nil {
				t.Fatal(err)
			}
			gc, err := client.Connect(ctx, client.InMemory(gw.Handler()), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = gc.Close(context.Background()) })
			listed, err := gc.ListTools(ctx, "")
			if got := names(t, listed.Tools, err, toolName); !slices.Equal(got, []string{"a.count", "a.echo", "b.count", "b.echo"}) {
				t.Fatalf("gateway tools %v", got)
			}
			if got := text(t)(gc.CallTool(ctx, "a.echo", map[string]string{"text": "via gateway"})); got != "alpha echoes via gateway" {
				t.Errorf("gateway a.echo: %q", got)
			}
			gp, err := gc.GetPrompt(ctx, "b.brief", map[string]string{"topic": "hosts"})
			if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "beta briefs on hosts" {
				t.Errorf("gateway b.brief: %+v %v", gp, err)
			}

			var progress []float64
			if got := text(t)(gc.CallTool(ctx, "b.count", nil, client.WithProgress(func(p mcp.ProgressParams) {
				progress = append(progress, p.Progress)
			}))); got != "counted" || !slices.Equal(progress, []float64{1, 2, 3}) {
				t.Errorf("gateway b.count: %q, progress %v", got, progress)
			}
			grr, err := gc.ReadResource(ctx, "app://alpha/readme")
			if err != nil || *grr.Contents[0].Text != "read alpha" {
				t.Errorf("gateway read: %+v %v", grr, err)
			}

			// beta gains a tool: its list_changed drops the cached list
			// within the hour's TTL, and the gateway declares the tool.
			b.Tool("shout", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
				return specter.Reply("BETA")
			}, specter.Description("Shouts"))
			select {
			case c := <-changes:
				if c != "b "+mcp.NotificationToolsChanged {
					t.Fatalf("change %q", c)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no list_changed reached the host")
			}
			tools, err = h.Tools(ctx)
			if got := names(t, tools, err, toolName); !slices.Equal(got, []string{"a.count", "a.echo", "b.count", "b.echo", "b.shout"}) {
				t.Fatalf("tools after the change %v", got)
			}
			eventually(t, "the gateway lists b.shout", func() bool {
				listed, err := gc.ListTools(ctx, "")
				return err == nil && slices.Contains(names(t, listed.Tools, nil, toolName), "b.shout")
			})
			if got := text(t)(gc.CallTool(ctx, "b.shout", nil)); got != "BETA" {
				t.Errorf("gateway b.shout: %q", got)
			}
		})
	}
}

// TestListCacheTTL serves lists from the cache within the TTL and asks
// the server again after it.
func TestListCacheTTL(t *testing.T) {
	r := router(t, "alpha")
	var lists atomic.Int32
	counting := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Mcp-Method") == mcp.MethodToolsList {
			lists.Add(1)
		}
		r.Handler().ServeHTTP(w, req)
	})
	for _, tc := range []struct {
		ttl  time.Duration
		want int32
	}{{time.Hour, 1}, {time.Nanosecond, 3}} {
		lists.Store(0)
		h, err := host.New(t.Context(), []host.Server{{Name: "a", Transport: client.InMemory(counting)}}, &host.Options{TTL: tc.ttl})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := h.Tools(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if err := h.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := lists.Load(); got != tc.want {
			t.Errorf("TTL %v: %d tools/list requests for 3 lists, want %d", tc.ttl, got, tc.want)
		}
	}
}
