package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/direct"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/observe"
	"github.com/specter-mcp/specter/params"
)

// trail records the steps of calls, in order, from any goroutine.
type trail struct {
	mu    sync.Mutex
	steps []string
}

func (t *trail) add(s string) {
	t.mu.Lock()
	t.steps = append(t.steps, s)
	t.mu.Unlock()
}

func (t *trail) take() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.steps
	t.steps = nil
	return s
}

// recording is middleware that notes its name before and after next.
func recording(tr *trail, name string) specter.Middleware {
	return func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			tr.add(name + ">")
			res := next(req, c)
			tr.add("<" + name)
			return res
		}
	}
}

// TestMiddlewareOrderDeclarationAndDecoration: the router's chain runs
// outside the declaration's, in the order given, around tools/call,
// prompts/get, resources/read and completion/complete; each middleware
// sees the declaration, and one decorates what the handler answered.
func TestMiddlewareOrderDeclarationAndDecoration(t *testing.T) {
	tr := &trail{}
	var seen []specter.Declaration
	r := specter.NewRouter("mw", "1.0.0", quiet)
	r.Use(recording(tr, "A"), recording(tr, "B"), func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			seen = append(seen, *req.Declaration)
			return next(req, c).Then(func(res specter.Result) specter.Result {
				if s, ok := res.Value().(string); ok {
					return specter.Reply(s + " [audited]")
				}
				return res
			})
		}
	})
	admin := specter.Use(recording(tr, "C"))
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		tr.add("handler")
		return specter.Reply("Hello, " + p.String("name"))
	}, specter.Description("Greet"), specter.ReadOnly(), specter.Scopes(), admin, params.String("name", params.Required()))
	r.Prompt("review", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		tr.add("prompt")
		return specter.Reply("Review " + p.String("code"))
	}, specter.Description("Review"), params.String("code"), specter.Complete("code", specter.Values("go", "rust")))
	r.Resource("notes://:id", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		tr.add("resource")
		return specter.Reply("note " + p.String("id"))
	}, specter.Description("A note"))

	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	res, _, err := c.CallTool(ctx(t), "greet", map[string]any{"name": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "Hello, Ada [audited]" {
		t.Errorf("decorated result %q", got)
	}
	if got, want := tr.take(), []string{"A>", "B>", "C>", "handler", "<C", "<B", "<A"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if d := seen[0]; d.Kind != "tool" || d.Name != "greet" || d.Annotations == nil || d.Annotations.ReadOnlyHint == nil || !*d.Annotations.ReadOnlyHint {
		t.Errorf("middleware saw declaration %+v", d)
	}

	pr, _, err := c.GetPrompt(ctx(t), "review", map[string]string{"code": "x := 1"})
	if err != nil || len(pr.Messages) != 1 || !strings.Contains(mustJSON(pr.Messages[0]), "Review x := 1 [audited]") {
		t.Errorf("prompt through the chain: %+v %v", pr, err)
	}
	rr, _, err := c.ReadResource(ctx(t), "notes://7")
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(mustJSON(rr.Contents[0]), "note 7 [audited]") {
		t.Errorf("resource through the chain: %+v %v", rr, err)
	}
	resp, err := c.Call(ctx(t), "completion/complete", map[string]any{
		"ref": map[string]any{"type": "ref/prompt", "name": "review"}, "argument": map[string]any{"name": "code", "value": "r"}})
	if err != nil || resp.Error != nil || !strings.Contains(string(resp.Result), `"values":["rust"]`) {
		t.Errorf("completion through the chain: %s %v %v", resp.Result, resp.Error, err)
	}
	if got, want := tr.take(), []string{"A>", "B>", "prompt", "<B", "<A", "A>", "B>", "resource", "<B", "<A", "A>", "B>", "<B", "<A"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	var kinds []string
	for _, d := range seen[1:] {
		kinds = append(kinds, d.Kind+" "+d.Name)
	}
	if want := []string{"prompt review", "resource notes://:id", "prompt review"}; !slices.Equal(kinds, want) {
		t.Errorf("declarations seen %v, want %v", kinds, want)
	}
}

// deny refuses destructive tools to callers without the X-Role: admin
// header, before the arguments are even validated.
func deny(calls *atomic.Int32) specter.Middleware {
	return func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			calls.Add(1)
			if a := req.Declaration.Annotations; a != nil && a.DestructiveHint != nil && *a.DestructiveHint &&
				c.HTTPRequest().Header.Get("X-Role") != "admin" {
				return specter.Error(jsonrpc.Errorf(specter.CodeForbidden, "Forbidden: %s needs an admin", req.Declaration.Name))
			}
			return next(req, c)
		}
	}
}

func TestMiddlewareDeniesACallInBothEras(t *testing.T) {
	var mw, ran atomic.Int32
	r := specter.NewRouter("mw", "1.0.0", quiet)
	r.Use(deny(&mw))
	r.Tool("drop_table", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		ran.Add(1)
		return specter.Reply("dropped " + p.String("table"))
	}, specter.Description("Drop a table"), specter.Destructive(true), params.String("table", params.Required()))
	e := newEnv(t, r)

	legacy := e.session(nil, "2025-11-25")
	// Missing arguments: the middleware answers before validation would.
	_, resp, err := legacy.CallTool(ctx(t), "drop_table", map[string]any{})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != specter.CodeForbidden || !strings.Contains(je.Message, "needs an admin") {
		t.Fatalf("session: %v %+v", err, resp)
	}
	stateless := e.stateless()
	mresp := callTool(t, stateless, "drop_table", map[string]any{"table": "users"}, nil)
	if mresp.Error == nil || mresp.Error.Code != specter.CodeForbidden {
		t.Fatalf("2026-07-28: %+v %s", mresp.Error, mresp.Result)
	}
	if ran.Load() != 0 || mw.Load() != 2 {
		t.Fatalf("handler ran %d times, middleware %d; want 0 and 2", ran.Load(), mw.Load())
	}

	legacy.Header.Set("X-Role", "admin")
	res, _, err := legacy.CallTool(ctx(t), "drop_table", map[string]any{"table": "users"})
	if err != nil || text(t, res) != "dropped users" {
		t.Fatalf("admin in a session: %v", err)
	}
	stateless.Header.Set("X-Role", "admin")
	if got := toolText(t, callTool(t, stateless, "drop_table", map[string]any{"table": "users"}, nil)); got != "dropped users" {
		t.Fatalf("admin on 2026-07-28: %q", got)
	}
	if ran.Load() != 2 {
		t.Errorf("handler ran %d times, want 2", ran.Load())
	}
}

// TestMiddlewareSeesNoReplyBeforeItsWork: a NoReply passes back through
// the chain as soon as the handler returns; Then decorates the reply the
// work sends later.
func TestMiddlewareSeesNoReplyBeforeItsWork(t *testing.T) {
	tr := &trail{}
	r := specter.NewRouter("mw", "1.0.0", quiet)
	r.Use(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			res := next(req, c)
			tr.add("chain returned, pending " + map[bool]string{true: "yes", false: "no"}[res.Pending()])
			return res.Then(func(final specter.Result) specter.Result {
				tr.add("then")
				return specter.Reply(final.Value().(string) + " [timed]")
			})
		}
	})
	r.Tool("slow", func(_ specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		tr.add("handler")
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			tr.add("work")
			_ = s.Progress(1, 1, "done")
			return specter.Reply("slow done")
		})
	}, specter.Description("Slow"))
	e := newEnv(t, r)

	c := e.session(nil, "2025-11-25")
	res, _, err := c.CallTool(ctx(t), "slow", nil, mcptest.ProgressToken(1))
	if err != nil || text(t, res) != "slow done [timed]" {
		t.Fatalf("session: %+v %v", res, err)
	}
	want := []string{"handler", "chain returned, pending yes", "work", "then"}
	if got := tr.take(); !slices.Equal(got, want) {
		t.Errorf("session order %v, want %v", got, want)
	}
	if got := toolText(t, callTool(t, e.stateless(), "slow", nil, nil)); got != "slow done [timed]" {
		t.Fatalf("2026-07-28: %q", got)
	}
	if got := tr.take(); !slices.Equal(got, want) {
		t.Errorf("2026-07-28 order %v, want %v", got, want)
	}
}

// TestMiddlewareRunsOnEveryMRTRRound: on the 2026-07-28 wire a handler
// that asks for input answers input_required and runs again when the
// client retries with the answer, and the chain runs with it, once per
// round; in a session the handler waits for the answer in one run.
func TestMiddlewareRunsOnEveryMRTRRound(t *testing.T) {
	var rounds atomic.Int32
	var sawInputRequired atomic.Bool
	r := specter.NewRouter("mw", "1.0.0", quiet)
	r.Use(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			rounds.Add(1)
			res := next(req, c)
			if errors.Is(res.Err(), specter.ErrInputRequired) {
				sawInputRequired.Store(true)
			}
			return res
		}
	})
	r.Tool("ask", askName, specter.Description("Ask a name"))
	e := newEnv(t, r)

	legacy := e.newClient(nil)
	legacy.OnRequest = legacyAnswers("Ada")
	e.session(legacy, "2025-11-25")
	if res, _, err := legacy.CallTool(ctx(t), "ask", nil); err != nil || text(t, res) != "Hello, Ada" {
		t.Fatalf("session: %v", err)
	}
	if rounds.Load() != 1 || sawInputRequired.Load() {
		t.Errorf("session: chain ran %d times (input required seen %v), want once", rounds.Load(), sawInputRequired.Load())
	}

	rounds.Store(0)
	m := e.stateless()
	round1 := inputRequired(t, callTool(t, m, "ask", nil, nil))
	key := keys(round1)[0]
	got := toolText(t, callTool(t, m, "ask", nil, map[string]any{
		"inputResponses": map[string]any{key: elicitAccept(map[string]any{"name": "Ada"})}, "requestState": round1.RequestState}))
	if got != "Hello, Ada" {
		t.Fatalf("2026-07-28 round 2: %q", got)
	}
	if rounds.Load() != 2 || !sawInputRequired.Load() {
		t.Errorf("2026-07-28: chain ran %d times (input required seen %v), want twice", rounds.Load(), sawInputRequired.Load())
	}
}

// TestMiddlewareAnswersCompletions: a completion runs the chain of its
// prompt, which may replace the values or refuse.
func TestMiddlewareAnswersCompletions(t *testing.T) {
	r := specter.NewRouter("mw", "1.0.0", quiet)
	r.Use(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			if req.Method != mcp.MethodComplete {
				return next(req, c)
			}
			if c.HTTPRequest().Header.Get("X-Deny") != "" {
				return specter.Error(jsonrpc.Errorf(specter.CodeForbidden, "Forbidden"))
			}
			return next(req, c).Then(func(res specter.Result) specter.Result {
				return specter.Reply(append(res.Value().([]string), "zig"))
			})
		}
	})
	r.Prompt("review", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Review")
	}, specter.Description("Review"), params.String("lang"), specter.Complete("lang", specter.Values("go", "rust")))
	e := newEnv(t, r)
	c := e.session(nil, "2025-11-25")
	params := map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "review"}, "argument": map[string]any{"name": "lang", "value": ""}}
	resp, err := c.Call(ctx(t), "completion/complete", params)
	if err != nil || resp.Error != nil || !strings.Contains(string(resp.Result), `"values":["go","rust","zig"]`) {
		t.Fatalf("decorated completion: %s %v %v", resp.Result, resp.Error, err)
	}
	c.Header.Set("X-Deny", "1")
	resp, err = c.Call(ctx(t), "completion/complete", params)
	if err != nil || resp.Error == nil || resp.Error.Code != specter.CodeForbidden {
		t.Fatalf("refused completion: %+v %v", resp, err)
	}
}

func TestUseAfterADeclarationPanics(t *testing.T) {
	r := specter.NewRouter("mw", "1.0.0", quiet)
	r.Tool("t", func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply("") }, specter.Description("T"))
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "Use after a declaration") {
			t.Errorf("recovered %v", v)
		}
	}()
	r.Use(recording(&trail{}, "late"))
}

// TestMiddlewareAndProbeOverDirect: transports other than HTTP (package
// direct, under stdio) run the same chain and report to the same probe.
func TestMiddlewareAndProbeOverDirect(t *testing.T) {
	tr := &trail{}
	r := specter.NewRouter("mw", "1.0.0", quiet, specter.Instrument(observe.Callback(func(op observe.Op, e observe.End, _ time.Duration) {
		tr.add(fmt.Sprintf("probe %s %s %s %q", op.Method, op.Name, e.Outcome, e.Declaration))
	})))
	r.Use(recording(tr, "A"))
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		tr.add("handler")
		return specter.Reply("Hello, " + p.String("name"))
	}, specter.Description("Greet"), params.String("name", params.Required()))
	answers := make(chan string, 1)
	conn := direct.Open(r, func(msg []byte) { answers <- string(msg) }, direct.Config{})
	t.Cleanup(func() {
		_ = conn.Close(context.Background())
		_ = r.Shutdown(context.Background())
	})
	if err := conn.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)); err != nil {
		t.Fatal(err)
	}
	if got := <-answers; !strings.Contains(got, "Hello, Ada") {
		t.Fatalf("answer %s", got)
	}
	want := []string{"A>", "handler", "<A", `probe tools/call greet ok "greet"`}
	// The probe hears of the end once the answer is sent.
	eventually(t, "the probe heard the call", func() bool {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return len(tr.steps) >= len(want)
	})
	if got := tr.take(); !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
}

// askName elicits a name, in a session or through input_required, and
// greets it.
func askName(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
	vals, _, err := c.Elicit("Your name?", params.Must(params.New(params.String("name", params.Required()))))
	if err != nil {
		return specter.Error(err)
	}
	return specter.Reply("Hello, " + vals.String("name"))
}
