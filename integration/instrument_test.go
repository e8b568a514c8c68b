package integration

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/observe"
	"github.com/specter-mcp/specter/params"
)

// TestInstrumentReportsRequestsAndWork: the probe hears of every request,
// NoReply work and request to the client in both eras, and of each MRTR
// round, with its outcome, JSON-RPC code and the declaration that served
// it.
func TestInstrumentReportsRequestsAndWork(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	r := specter.NewRouter("probe", "1.0.0", quiet, specter.Instrument(observe.Callback(func(op observe.Op, e observe.End, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		era := "session"
		if op.Stateless {
			era = "stateless"
		}
		if op.Kind == observe.Request && (op.Version == "" || len(op.ID) == 0 || took <= 0 || op.Stateless == (op.SessionID != "")) {
			seen = append(seen, fmt.Sprintf("incomplete %+v", op))
		}
		seen = append(seen, fmt.Sprintf("%s %s %s %s %s %d %q", era, op.Kind, op.Method, op.Name, e.Outcome, e.Code, e.Declaration))
	})))
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Hello, " + p.String("name"))
	}, specter.Description("Greet"), params.String("name", params.Required()))
	r.Tool("slow", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(*specter.Stream) specter.Result { return specter.Reply("done") })
	}, specter.Description("Slow"))
	r.Tool("ask", askName, specter.Description("Ask a name"))
	r.Resource("notes://:id", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("note " + p.String("id"))
	}, specter.Description("A note"))
	e := newEnv(t, r)
	c := e.newClient(nil)
	c.OnRequest = legacyAnswers("Ada")
	e.session(c, "2025-11-25")
	m := e.stateless()
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		s := seen
		seen = nil
		return s
	}
	take() // initialize

	if _, _, err := c.CallTool(ctx(t), "greet", map[string]any{"name": "Ada"}); err != nil {
		t.Fatal(err)
	}
	_, _, _ = c.CallTool(ctx(t), "greet", map[string]any{})
	_, _, _ = c.CallTool(ctx(t), "nope", nil)
	if _, _, err := c.ReadResource(ctx(t), "notes://7"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.CallTool(ctx(t), "slow", nil); err != nil {
		t.Fatal(err)
	}
	if res, _, err := c.CallTool(ctx(t), "ask", nil); err != nil || text(t, res) != "Hello, Ada" {
		t.Fatal(err)
	}
	toolText(t, callTool(t, m, "greet", map[string]any{"name": "Ada"}, nil))
	// Each MRTR round is a request of its own.
	round1 := inputRequired(t, callTool(t, m, "ask", nil, nil))
	toolText(t, callTool(t, m, "ask", nil, map[string]any{
		"inputResponses": map[string]any{keys(round1)[0]: elicitAccept(map[string]any{"name": "Ada"})}, "requestState": round1.RequestState}))
	want := []string{
		`session request tools/call greet ok 0 "greet"`,
		`session request tools/call greet tool_error 0 "greet"`,
		`session request tools/call nope error -32602 ""`,
		`session request resources/read notes://7 ok 0 "notes://:id"`,
		`session work tools/call slow ok 0 ""`,
		`session request tools/call slow ok 0 "slow"`,
		`session outbound elicitation/create  ok 0 ""`,
		`session request tools/call ask ok 0 "ask"`,
		`stateless request tools/call greet ok 0 "greet"`,
		`stateless request tools/call ask input_required 0 "ask"`,
		`stateless request tools/call ask ok 0 "ask"`,
	}
	if got := take(); !slices.Equal(got, want) {
		t.Errorf("probe heard\n%v\nwant\n%v", got, want)
	}
}
