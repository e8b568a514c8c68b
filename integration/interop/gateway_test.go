package interop

//lint:file-ignore SA1019 the gateway relays the go-sdk's sampling, logging and roots, deprecated on 2026-07-28 but still served

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/gateway"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// askServer is a Specter server that asks its caller for everything a
// server can within one call (elicitation, sampling, roots), logs and
// reports progress, and offers a prompt and a template that complete.
func askServer(t *testing.T) *specter.Router {
	r := specter.NewRouter("asker", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	r.Tool("ask", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		vals, _, err := c.Elicit("Who are you?", params.Must(params.New(params.String("name", params.Required()))))
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
		var answer, root string
		if tc, ok := msg.Content[0].(*mcp.TextContent); ok {
			answer = tc.Text
		}
		if len(roots) > 0 {
			root = roots[0].URI
		}
		return specter.Reply(fmt.Sprintf("name=%v sample=%s root=%s", vals["name"], answer, root))
	}, specter.Description("Asks its caller for a name, a sample and roots"))
	r.Tool("work", func(_ specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			_ = s.Log(mcp.LevelInfo, "working")
			_ = s.Progress(1, 1, "done")
			return specter.Reply("worked")
		})
	}, specter.Description("Logs and reports progress"))
	r.Prompt("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Greet " + p.String("who"))
	}, specter.Description("Greets someone"), params.String("who", params.Required()), specter.Complete("who", specter.Values("Ada", "Alan")))
	r.Resource("asker://people/{who}", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("person " + p.String("who"))
	}, specter.Name("person"), specter.Description("A person"), specter.Complete("who", specter.Values("Ada", "Alan")))
	return r
}

// realGateway serves, on loopback, a gateway over server-everything
// (Streamable HTTP, a session of 2025-11-25) and a Specter server reached
// on 2026-07-28, whose requests are relayed to the gateway's callers.
func realGateway(t *testing.T) string {
	t.Helper()
	srv := serve(t, []string{"PORT=" + freePort(t)}, everything, "streamableHttp")
	h, err := host.New(ctx(t), []host.Server{
		{Name: "everything", Transport: &client.HTTPTransport{URL: srv.URL()}, Options: gateway.Relay(&client.Options{Version: mcp.Version20251125})},
		{Name: "asker", Transport: client.InMemory(askServer(t).Handler()), Options: gateway.Relay(&client.Options{Version: mcp.Version20260728})},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = gw.Shutdown(context.Background()) })
	if err := gateway.Mount(ctx(t), h, gw); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(gw.Handler())
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// The answers the gateway's callers give.
const (
	callerName   = "Ada Lovelace"
	callerSample = "Paris, says the caller"
	callerRoot   = "file:///home/ada"
)

// gatewayCaller is what a client of the gateway does, whichever SDK it
// is: each capability through the gateway, and what the client saw.
type gatewayCaller interface {
	tools() []string
	call(name string, args map[string]any, progress bool) string
	templates() []string
	read(uri string) string
	prompts() []string
	prompt(name string, args map[string]string) string
	complete(ref mcp.CompleteRef, arg, value string) []string
	progress() <-chan float64
	logs() <-chan any
}

// TestGatewayReexportsRealServers re-exports server-everything and a
// Specter server through a gateway, to our client and to the official Go
// SDK's, in both eras, through every capability.
func TestGatewayReexportsRealServers(t *testing.T) {
	url := realGateway(t)
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run("specter "+version, func(t *testing.T) { checkGateway(t, newSpecterCaller(t, url, version)) })
		t.Run("go-sdk "+version, func(t *testing.T) { checkGateway(t, newSDKCaller(t, url, version)) })
	}
}

func checkGateway(t *testing.T, c gatewayCaller) {
	t.Run("tools", func(t *testing.T) {
		names := c.tools()
		for _, want := range []string{"everything.echo", "everything.trigger-elicitation-request", "everything.trigger-sampling-request", "asker.ask"} {
			if !slices.Contains(names, want) {
				t.Errorf("no %s among %v", want, names)
			}
		}
		if got := c.call("everything.echo", map[string]any{"message": "hi"}, false); got != "Echo: hi" {
			t.Errorf("echo: %q", got)
		}
	})
	t.Run("resources and templates", func(t *testing.T) {
		templates := c.templates()
		for _, want := range []string{"demo://resource/dynamic/text/{resourceId}", "asker://people/{who}"} {
			if !slices.Contains(templates, want) {
				t.Errorf("no template %s among %v", want, templates)
			}
		}
		if got := c.read("demo://resource/dynamic/text/3"); !strings.HasPrefix(got, "Resource 3:") {
			t.Errorf("read through server-everything's template: %q", got)
		}
		if got := c.read("asker://people/ada"); got != "person ada" {
			t.Errorf("read through the Specter server's template: %q", got)
		}
	})
	t.Run("prompts", func(t *testing.T) {
		names := c.prompts()
		for _, want := range []string{"everything.simple-prompt", "asker.greet"} {
			if !slices.Contains(names, want) {
				t.Errorf("no prompt %s among %v", want, names)
			}
		}
		if got := c.prompt("asker.greet", map[string]string{"who": "Ada"}); got != "Greet Ada" {
			t.Errorf("asker.greet: %q", got)
		}
		if got := c.prompt("everything.simple-prompt", nil); got == "" {
			t.Error("everything.simple-prompt is empty")
		}
	})
	t.Run("completion", func(t *testing.T) {
		if got := c.complete(mcp.CompleteRef{Type: mcp.RefResource, URI: "demo://resource/dynamic/text/{resourceId}"}, "resourceId", "7"); !slices.Equal(got, []string{"7"}) {
			t.Errorf("server-everything's template: %v", got)
		}
		if got := c.complete(mcp.CompleteRef{Type: mcp.RefPrompt, Name: "everything.resource-prompt"}, "resourceType", "Te"); !slices.Equal(got, []string{"Text"}) {
			t.Errorf("server-everything's prompt: %v", got)
		}
		if got := c.complete(mcp.CompleteRef{Type: mcp.RefResource, URI: "asker://people/{who}"}, "who", "A"); !slices.Equal(got, []string{"Ada", "Alan"}) {
			t.Errorf("the Specter server's template: %v", got)
		}
	})
	t.Run("elicitation", func(t *testing.T) {
		if got := c.call("everything.trigger-elicitation-request", nil, false); !strings.Contains(got, "- Name: "+callerName) {
			t.Errorf("server-everything's elicitation: %q", got)
		}
	})
	t.Run("sampling", func(t *testing.T) {
		if got := c.call("everything.trigger-sampling-request", map[string]any{"prompt": "Capital of France?", "maxTokens": 10}, false); !strings.Contains(got, callerSample) {
			t.Errorf("server-everything's sampling: %q", got)
		}
	})
	t.Run("elicitation, sampling and roots on 2026-07-28", func(t *testing.T) {
		want := fmt.Sprintf("name=%s sample=%s root=%s", callerName, callerSample, callerRoot)
		if got := c.call("asker.ask", nil, false); got != want {
			t.Errorf("asker.ask: %q, want %q", got, want)
		}
	})
	t.Run("progress", func(t *testing.T) {
		c.call("everything.trigger-long-running-operation", map[string]any{"duration": 0.2, "steps": 2}, true)
		for _, want := range []float64{1, 2} {
			if got := receive(t, c.progress(), "progress"); got != want {
				t.Errorf("progress %v, want %v", got, want)
			}
		}
	})
	t.Run("logging", func(t *testing.T) {
		c.call("asker.work", nil, false)
		if got := receive(t, c.logs(), "a log message"); got != "working" {
			t.Errorf("log %v", got)
		}
	})
}

// receive waits for what a client's handler saw, which the Go SDK may
// hand over after the result.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s came", what)
	}
	var zero T
	return zero
}

// specterCaller is our client as the gateway's caller.
type specterCaller struct {
	t     *testing.T
	c     *client.Client
	prog  chan float64
	logCh chan any
}

func newSpecterCaller(t *testing.T, url, version string) *specterCaller {
	s := &specterCaller{t: t, prog: make(chan float64, 16), logCh: make(chan any, 16)}
	s.c = connect(t, &client.HTTPTransport{URL: url}, &client.Options{
		Version:  version,
		LogLevel: mcp.LevelInfo,
		OnLog:    func(p mcp.LoggingMessageParams) { s.logCh <- p.Data },
		Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": callerName}}, nil
		},
		Sampling: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContent{mcp.Text(callerSample)}, Model: "m"}, nil
		},
		Roots: func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: callerRoot}}, nil },
	})
	return s
}

func collect[T any](t *testing.T, seq func(func(T, error) bool), name func(T) string) []string {
	t.Helper()
	var out []string
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, name(v))
	}
	return out
}

func (s *specterCaller) tools() []string {
	return collect(s.t, s.c.Tools(ctx(s.t)), func(x mcp.Tool) string { return x.Name })
}

func (s *specterCaller) call(name string, args map[string]any, progress bool) string {
	s.t.Helper()
	var opts []client.CallOption
	if progress {
		opts = append(opts, client.WithProgress(func(p mcp.ProgressParams) { s.prog <- p.Progress }))
	}
	res, err := s.c.CallTool(ctx(s.t), name, args, opts...)
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.IsError {
		s.t.Fatalf("%s: %v", name, texts)
	}
	return strings.Join(texts, "\n")
}

func (s *specterCaller) templates() []string {
	return collect(s.t, s.c.ResourceTemplates(ctx(s.t)), func(x mcp.ResourceTemplate) string { return x.URITemplate })
}

func (s *specterCaller) read(uri string) string {
	s.t.Helper()
	res, err := s.c.ReadResource(ctx(s.t), uri)
	if err != nil || len(res.Contents) == 0 || res.Contents[0].Text == nil {
		s.t.Fatalf("read %s: %+v %v", uri, res, err)
	}
	return *res.Contents[0].Text
}

func (s *specterCaller) prompts() []string {
	return collect(s.t, s.c.Prompts(ctx(s.t)), func(x mcp.Prompt) string { return x.Name })
}

func (s *specterCaller) prompt(name string, args map[string]string) string {
	s.t.Helper()
	res, err := s.c.GetPrompt(ctx(s.t), name, args)
	if err != nil || len(res.Messages) == 0 {
		s.t.Fatalf("prompt %s: %+v %v", name, res, err)
	}
	b, _ := json.Marshal(res.Messages[0].Content)
	var tc struct{ Text string }
	_ = json.Unmarshal(b, &tc)
	return tc.Text
}

func (s *specterCaller) complete(ref mcp.CompleteRef, arg, value string) []string {
	s.t.Helper()
	res, err := s.c.Complete(ctx(s.t), mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteArgument{Name: arg, Value: value}})
	if err != nil {
		s.t.Fatalf("complete %+v %s: %v", ref, arg, err)
	}
	return res.Completion.Values
}

func (s *specterCaller) progress() <-chan float64 { return s.prog }
func (s *specterCaller) logs() <-chan any         { return s.logCh }

// sdkCaller is the official Go SDK's client as the gateway's caller.
type sdkCaller struct {
	t         *testing.T
	cs        *sdk.ClientSession
	stateless bool // 2026-07-28: the log level goes in each call's _meta
	prog      chan float64
	logCh     chan any
}

func newSDKCaller(t *testing.T, url, version string) *sdkCaller {
	s := &sdkCaller{t: t, prog: make(chan float64, 16), logCh: make(chan any, 16)}
	c := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-caller", Version: "1.0.0"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": callerName}}, nil
		},
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &sdk.TextContent{Text: callerSample}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) { s.prog <- req.Params.Progress },
		LoggingMessageHandler:       func(_ context.Context, req *sdk.LoggingMessageRequest) { s.logCh <- req.Params.Data },
	})
	c.AddRoots(&sdk.Root{URI: callerRoot})
	var opts *sdk.ClientSessionOptions
	if version != mcp.Version20260728 {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(ctx(t), &sdk.StreamableClientTransport{Endpoint: url}, opts)
	if err != nil {
		t.Fatalf("Go SDK Connect(%s): %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	s.cs, s.stateless = cs, version == mcp.Version20260728
	if !s.stateless {
		if err := cs.SetLoggingLevel(ctx(t), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatalf("logging/setLevel: %v", err)
		}
	}
	return s
}

func (s *sdkCaller) tools() []string {
	res, err := s.cs.ListTools(ctx(s.t), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, x := range res.Tools {
		out = append(out, x.Name)
	}
	return out
}

func (s *sdkCaller) call(name string, args map[string]any, progress bool) string {
	s.t.Helper()
	p := &sdk.CallToolParams{Name: name, Arguments: args}
	if progress {
		p.SetProgressToken("gateway-progress")
	}
	if s.stateless {
		if p.Meta == nil {
			p.Meta = sdk.Meta{}
		}
		p.Meta[sdk.MetaKeyLogLevel] = "info"
	}
	res, err := s.cs.CallTool(ctx(s.t), p)
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.IsError {
		s.t.Fatalf("%s: %v", name, texts)
	}
	return strings.Join(texts, "\n")
}

func (s *sdkCaller) templates() []string {
	res, err := s.cs.ListResourceTemplates(ctx(s.t), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, x := range res.ResourceTemplates {
		out = append(out, x.URITemplate)
	}
	return out
}

func (s *sdkCaller) read(uri string) string {
	s.t.Helper()
	res, err := s.cs.ReadResource(ctx(s.t), &sdk.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) == 0 {
		s.t.Fatalf("read %s: %+v %v", uri, res, err)
	}
	return res.Contents[0].Text
}

func (s *sdkCaller) prompts() []string {
	res, err := s.cs.ListPrompts(ctx(s.t), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, x := range res.Prompts {
		out = append(out, x.Name)
	}
	return out
}

func (s *sdkCaller) prompt(name string, args map[string]string) string {
	s.t.Helper()
	res, err := s.cs.GetPrompt(ctx(s.t), &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil || len(res.Messages) == 0 {
		s.t.Fatalf("prompt %s: %+v %v", name, res, err)
	}
	if tc, ok := res.Messages[0].Content.(*sdk.TextContent); ok {
		return tc.Text
	}
	return ""
}

func (s *sdkCaller) complete(ref mcp.CompleteRef, arg, value string) []string {
	s.t.Helper()
	res, err := s.cs.Complete(ctx(s.t), &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: ref.Type, Name: ref.Name, URI: ref.URI},
		Argument: sdk.CompleteParamsArgument{Name: arg, Value: value}})
	if err != nil {
		s.t.Fatalf("complete %+v %s: %v", ref, arg, err)
	}
	return res.Completion.Values
}

func (s *sdkCaller) progress() <-chan float64 { return s.prog }
func (s *sdkCaller) logs() <-chan any         { return s.logCh }
