package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/gateway"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/transform"
)

// notes is a downstream server with a bit of everything: a described,
// annotated tool, a tool that asks its caller for input, a prompt and a
// template that complete, and a search tool to transform.
func notes(t *testing.T) *specter.Router {
	t.Helper()
	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	r.Tool("add", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("added " + p.String("text"))
	}, specter.Description("Add a note"), specter.Title("Add note"),
		specter.Icons(mcp.Icon{Src: "https://example.com/add.png", MIMEType: "image/png"}),
		specter.Annotations(mcp.ToolAnnotations{Title: "Add note", IdempotentHint: ptr(true), OpenWorldHint: ptr(false)}),
		params.String("text", params.Required()))
	r.Tool("search", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(fmt.Sprintf("q=%s tenant=%s limit=%v", p.String("q"), p.String("tenant"), p["limit"]))
	}, specter.Description("Search notes"),
		params.String("q", params.Required()), params.String("tenant", params.Required()), params.Integer("limit"))
	r.Tool("ask", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		vals, action, err := c.Elicit("Who are you?", params.Must(params.New(params.String("name", params.Required()))))
		if err != nil {
			return specter.Error(err)
		}
		msg, err := c.Sample(&mcp.CreateMessageParams{Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{mcp.Text("Capital?")}}}, MaxTokens: 10})
		if err != nil {
			return specter.Error(err)
		}
		roots, err := c.ListRoots()
		if err != nil {
			return specter.Error(err)
		}
		var answer string
		if len(msg.Content) > 0 {
			if tc, ok := msg.Content[0].(*mcp.TextContent); ok {
				answer = tc.Text
			}
		}
		var uris []string
		for _, r := range roots {
			uris = append(uris, r.URI)
		}
		return specter.Reply(fmt.Sprintf("%s %v; %s; %s", action, vals["name"], answer, strings.Join(uris, ",")))
	}, specter.Description("Ask the caller"))
	r.Prompt("summarize", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Summarize " + p.String("topic"))
	}, specter.Description("Summarize a topic"), specter.Title("Summary"),
		params.String("topic", params.Required()), specter.Complete("topic", specter.Values("golang", "gophers", "rust")))
	r.Resource("notes://note/{id}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("note " + p.String("id"))
	}, specter.Name("note"), specter.Title("A note"), specter.Description("A note by id"), specter.MIMEType("text/plain"),
		specter.Complete("id", specter.Values("17", "42", "420")))
	r.Resource("notes://index", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("the index")
	}, specter.Name("index"), specter.Title("Index"), specter.Description("All notes"))
	return r
}

func ptr[T any](v T) *T { return &v }

// gatewayOver mounts a gateway over the servers, each reached in
// version (empty: negotiated), their requests relayed to the gateway's
// callers. Mount's error is the test's failure.
func gatewayOver(t *testing.T, version string, servers map[string]*specter.Router, opts ...gateway.Option) *specter.Router {
	t.Helper()
	gw, err := mount(t, version, servers, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return gw
}

// mount is gatewayOver, returning Mount's error.
func mount(t *testing.T, version string, servers map[string]*specter.Router, opts ...gateway.Option) (*specter.Router, error) {
	t.Helper()
	ctx := t.Context()
	var hs []host.Server
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range servers {
			if !yield(k) {
				return
			}
		}
	}) {
		hs = append(hs, host.Server{Name: name, Transport: client.InMemory(servers[name].Handler()), Options: gateway.Relay(&client.Options{Version: version})})
	}
	h, err := host.New(ctx, hs, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = gw.Shutdown(context.Background()) })
	return gw, gateway.Mount(ctx, h, gw, opts...)
}

func connect(t *testing.T, gw *specter.Router, opts *client.Options) *client.Client {
	t.Helper()
	c, err := client.Connect(t.Context(), client.InMemory(gw.Handler()), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func text(t *testing.T, c *client.Client, name string, args any) string {
	t.Helper()
	res, err := c.CallTool(t.Context(), name, args)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("tool error: %s", b.String())
	}
	return b.String()
}

// eras runs f for the gateway's clients and servers in both eras.
func eras(t *testing.T, f func(t *testing.T, upstream, downstream string)) {
	for _, up := range []string{mcp.Version20251125, mcp.Version20260728} {
		for _, down := range []string{mcp.Version20251125, mcp.Version20260728} {
			t.Run("client "+up+" server "+down, func(t *testing.T) { f(t, up, down) })
		}
	}
}

func tools(t *testing.T, c *client.Client) map[string]mcp.Tool {
	t.Helper()
	out := map[string]mcp.Tool{}
	for tool, err := range c.Tools(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

func TestPrefixesAnnotationsAndTransformations(t *testing.T) {
	eras(t, func(t *testing.T, up, down string) {
		upper := func(_ context.Context, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					tc.Text = strings.ToUpper(tc.Text)
				}
			}
			return res, nil
		}
		gw, err := mount(t, down, map[string]*specter.Router{"notes": notes(t), "archive": notes(t)},
			gateway.Prefix("notes", ""), gateway.Prefix("archive", "old_"),
			gateway.Transform("notes", map[string]transform.Tool{"search": {
				Name: "find", Description: "Find notes of Acme",
				Args:   map[string]transform.Arg{"q": {Name: "query"}, "tenant": {Value: "acme"}, "limit": {Default: 5}},
				Result: upper,
			}}))
		// Both servers have the same resources: the second's are refused.
		if err == nil || !strings.Contains(err.Error(), "resource notes://index") || strings.Contains(err.Error(), "tool") {
			t.Errorf("Mount's error = %v", err)
		}
		c := connect(t, gw, &client.Options{Version: up})
		ts := tools(t, c)
		for _, name := range []string{"add", "find", "ask", "old_add", "old_search", "old_ask"} {
			if _, ok := ts[name]; !ok {
				t.Errorf("no tool %s in %v", name, slices.Collect(func(y func(string) bool) {
					for k := range ts {
						y(k)
					}
				}))
			}
		}
		add := ts["add"]
		if add.Title != "Add note" || len(add.Icons) != 1 || add.Icons[0].Src != "https://example.com/add.png" ||
			add.Annotations == nil || add.Annotations.Title != "Add note" || add.Annotations.IdempotentHint == nil || !*add.Annotations.IdempotentHint ||
			add.Annotations.OpenWorldHint == nil || *add.Annotations.OpenWorldHint {
			t.Errorf("add lost its title, icons or annotations: %+v %+v", add, add.Annotations)
		}
		if find := ts["find"]; find.Description != "Find notes of Acme" || strings.Contains(string(find.InputSchema), "tenant") || !strings.Contains(string(find.InputSchema), `"query"`) {
			t.Errorf("find = %+v %s", find, find.InputSchema)
		}
		ctx := t.Context()
		if got := text(t, c, "find", map[string]any{"query": "go"}); got != "Q=GO TENANT=ACME LIMIT=5" {
			t.Errorf("find = %q", got)
		}
		if got := text(t, c, "old_search", map[string]any{"q": "go", "tenant": "t"}); got != "q=go tenant=t limit=<nil>" {
			t.Errorf("old_search = %q", got)
		}
		res, err := c.CallTool(ctx, "find", map[string]any{"query": "go", "tenant": "evil"})
		if err == nil && !res.IsError {
			t.Errorf("a fixed argument was accepted: %+v", res)
		}
	})
}

func TestTemplatesPromptsAndCompletion(t *testing.T) {
	eras(t, func(t *testing.T, up, down string) {
		gw := gatewayOver(t, down, map[string]*specter.Router{"notes": notes(t)})
		c := connect(t, gw, &client.Options{Version: up})
		ctx := t.Context()
		var templates []mcp.ResourceTemplate
		for rt, err := range c.ResourceTemplates(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, rt)
		}
		if len(templates) != 1 || templates[0].URITemplate != "notes://note/{id}" || templates[0].Title != "A note" || templates[0].MIMEType != "text/plain" {
			t.Fatalf("templates = %+v", templates)
		}
		res, err := c.ReadResource(ctx, "notes://note/42")
		if err != nil || len(res.Contents) != 1 || *res.Contents[0].Text != "note 42" {
			t.Fatalf("read = %+v, %v", res, err)
		}
		if res, err := c.ReadResource(ctx, "notes://index"); err != nil || *res.Contents[0].Text != "the index" {
			t.Fatalf("read index = %+v, %v", res, err)
		}
		comp, err := c.Complete(ctx, mcp.CompleteParams{Ref: mcp.CompleteRef{Type: mcp.RefResource, URI: "notes://note/{id}"}, Argument: mcp.CompleteArgument{Name: "id", Value: "4"}})
		if err != nil || !slices.Equal(comp.Completion.Values, []string{"42", "420"}) {
			t.Fatalf("template completion = %+v, %v", comp, err)
		}
		comp, err = c.Complete(ctx, mcp.CompleteParams{Ref: mcp.CompleteRef{Type: mcp.RefPrompt, Name: "notes.summarize"}, Argument: mcp.CompleteArgument{Name: "topic", Value: "go"}})
		if err != nil || !slices.Equal(comp.Completion.Values, []string{"golang", "gophers"}) {
			t.Fatalf("prompt completion = %+v, %v", comp, err)
		}
		var prompts []mcp.Prompt
		for p, err := range c.Prompts(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			prompts = append(prompts, p)
		}
		if len(prompts) != 1 || prompts[0].Title != "Summary" {
			t.Fatalf("prompts = %+v", prompts)
		}
		pr, err := c.GetPrompt(ctx, "notes.summarize", map[string]string{"topic": "gophers"})
		if err != nil || len(pr.Messages) != 1 {
			t.Fatalf("prompt = %+v, %v", pr, err)
		}
	})
}

// answering is a gateway client that answers as who.
func answering(version, who string) *client.Options {
	return &client.Options{
		Version: version,
		Elicitation: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": who}}, nil
		},
		Sampling: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContent{mcp.Text("Paris for " + who)}, Model: "m"}, nil
		},
		Roots: func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///home/" + who}}, nil
		},
	}
}

// The server's requests during a call reach the gateway client that made
// it, not another, and not the gateway's own handlers.
func TestServerRequestsGoToTheCallingClient(t *testing.T) {
	eras(t, func(t *testing.T, up, down string) {
		gw := gatewayOver(t, down, map[string]*specter.Router{"notes": notes(t)})
		ada, bob := connect(t, gw, answering(up, "ada")), connect(t, gw, answering(up, "bob"))
		var wg sync.WaitGroup
		got := make([]string, 2)
		for i, c := range []*client.Client{ada, bob} {
			wg.Go(func() {
				res, err := c.CallTool(t.Context(), "notes.ask", nil)
				if err != nil {
					got[i] = err.Error()
					return
				}
				b, _ := json.Marshal(res.Content)
				got[i] = string(b)
			})
		}
		wg.Wait()
		for i, who := range []string{"ada", "bob"} {
			want := fmt.Sprintf("accept %s; Paris for %s; file:///home/%s", who, who, who)
			if !strings.Contains(got[i], want) {
				t.Errorf("%s got %s, want %q", who, got[i], want)
			}
		}
	})
}

// A caller without the capability gets the server's error, not another
// caller's answer.
func TestServerRequestsNeedTheCallersCapability(t *testing.T) {
	gw := gatewayOver(t, "", map[string]*specter.Router{"notes": notes(t)})
	c := connect(t, gw, &client.Options{Version: mcp.Version20251125})
	res, err := c.CallTool(t.Context(), "notes.ask", nil)
	if err == nil && !res.IsError {
		t.Fatalf("a call without elicitation was answered: %+v", res)
	}
}
