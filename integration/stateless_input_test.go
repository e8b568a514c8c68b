package integration

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// nameSchema is the fixture's elicitation schema asking for a name.
const nameSchema = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`

// canned answers, as the conformance harness sends them.
var (
	samplingAnswer = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Paris"}, "model": "test-model", "stopReason": "endTurn"}
	rootsAnswer    = map[string]any{"roots": []map[string]any{{"uri": "file:///test/root", "name": "Test Root"}}}
)

// legacyAnswers answers server requests in a session like the harness;
// an elicitation is accepted with every requested field filled in.
func legacyAnswers(name string) mcptest.RequestHandler {
	values := map[string]any{"name": name, "username": name, "email": name + "@example.com"}
	return func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
		switch method {
		case "elicitation/create":
			var p struct {
				RequestedSchema struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"requestedSchema"`
			}
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%v", err)
			}
			content := map[string]any{}
			for field := range p.RequestedSchema.Properties {
				content[field] = values[field]
			}
			return elicitAccept(content), nil
		case "sampling/createMessage":
			return samplingAnswer, nil
		case "roots/list":
			return rootsAnswer, nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "unexpected %s", method)
	}
}

// keys returns the sorted keys of inputRequests.
func keys(res mcptest.StatelessResult) []string {
	k := slices.Collect(maps.Keys(res.InputRequests))
	sort.Strings(k)
	return k
}

// elicitParams decodes the params of an elicitation/create input request.
func elicitParams(t *testing.T, q mcptest.InputRequest) (message, schema string) {
	t.Helper()
	if q.Method != "elicitation/create" {
		t.Fatalf("input request method %q, want elicitation/create", q.Method)
	}
	var p struct {
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(q.Params, &p); err != nil {
		t.Fatal(err)
	}
	var compact map[string]any
	_ = json.Unmarshal(p.RequestedSchema, &compact)
	return p.Message, mustJSON(compact)
}

func canonical(s string) string {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	return mustJSON(v)
}

// TestOneHandlerBothEras drives the same fixture handlers in a session,
// where they block on server-to-client requests, and on the 2026-07-28
// wire, where they answer input_required and run again with the answers.
func TestOneHandlerBothEras(t *testing.T) {
	e := newEnv(t, nil)
	legacy := e.newClient(nil)
	legacy.OnRequest = legacyAnswers("Ada")
	e.session(legacy, "2025-11-25")
	stateless := e.stateless()

	tests := []struct {
		tool, key, method string
		args              map[string]any
		answer            any
		want              string
	}{
		{"test_input_required_result_elicitation", "user_name", "elicitation/create", nil, elicitAccept(map[string]any{"name": "Ada"}), "Hello, Ada!"},
		{"test_input_required_result_sampling", "capital_question", "sampling/createMessage", nil, samplingAnswer, "The model answered: Paris"},
		{"test_input_required_result_list_roots", "client_roots", "roots/list", nil, rootsAnswer, "The client has 1 root(s)"},
		{"test_elicitation", "elicitation-1", "elicitation/create", map[string]any{"message": "Who?"},
			elicitAccept(map[string]any{"username": "Ada", "email": "Ada@example.com"}),
			`User response: action=accept, content={"email":"Ada@example.com","username":"Ada"}`},
		{"test_sampling", "sampling-1", "sampling/createMessage", map[string]any{"prompt": "Capital?"}, samplingAnswer, "LLM response: Paris"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, resp, err := legacy.CallTool(ctx(t), tt.tool, tt.args)
			if err != nil {
				t.Fatalf("session: %v", err)
			}
			if got := text(t, res); got != tt.want {
				t.Errorf("session: %q, want %q", got, tt.want)
			}
			if len(resp.Requests) != 1 || resp.Requests[0].Method != tt.method {
				t.Errorf("session: server requests %v, want one %s", resp.Requests, tt.method)
			}

			resp1 := callTool(t, stateless, tt.tool, tt.args, nil)
			round1 := inputRequired(t, resp1)
			if got := keys(round1); !slices.Equal(got, []string{tt.key}) || round1.InputRequests[tt.key].Method != tt.method {
				t.Fatalf("stateless round 1 asks %v (%+v), want %s: %s", got, round1.InputRequests, tt.key, tt.method)
			}
			if len(resp1.Requests) != 0 {
				t.Errorf("stateless round 1 sent server requests on the stream: %v", resp1.Requests)
			}
			if round1.RequestState == "" {
				t.Error("stateless round 1 has no requestState")
			}
			if len(resp.Requests) == 1 {
				// Both eras ask the same question.
				if got, want := canonical(string(round1.InputRequests[tt.key].Params)), canonical(string(resp.Requests[0].Params)); got != want {
					t.Errorf("stateless question %s, session question %s", got, want)
				}
			}
			resp2 := callTool(t, stateless, tt.tool, tt.args, map[string]any{
				"inputResponses": map[string]any{tt.key: tt.answer}, "requestState": round1.RequestState,
			})
			if got := toolText(t, resp2); got != tt.want {
				t.Errorf("stateless round 2: %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStatelessElicitationRounds(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	const tool = "test_input_required_result_elicitation"
	round1 := inputRequired(t, callTool(t, c, tool, map[string]any{}, nil))
	msg, schema := elicitParams(t, round1.InputRequests["user_name"])
	if msg != "What is your name?" || schema != canonical(nameSchema) {
		t.Errorf("question %q %s", msg, schema)
	}
	answer := map[string]any{"user_name": elicitAccept(map[string]any{"name": "Grace"})}
	if got := toolText(t, callTool(t, c, tool, map[string]any{}, map[string]any{"inputResponses": answer, "requestState": round1.RequestState})); got != "Hello, Grace!" {
		t.Errorf("with state: %q", got)
	}
	// requestState is not required when the answers are all there, and
	// unknown extra answers are ignored.
	extra := map[string]any{"user_name": elicitAccept(map[string]any{"name": "Grace"}), "unexpected": 1, "other": map[string]any{"x": true}}
	if got := toolText(t, callTool(t, c, tool, map[string]any{}, map[string]any{"inputResponses": extra})); got != "Hello, Grace!" {
		t.Errorf("without state, with extras: %q", got)
	}
	decline := map[string]any{"user_name": map[string]any{"action": "decline"}}
	if got := toolText(t, callTool(t, c, tool, nil, map[string]any{"inputResponses": decline, "requestState": round1.RequestState})); got != "No name given (decline)" {
		t.Errorf("declined: %q", got)
	}
}

func TestStatelessInvalidInputResponsesAreAskedAgain(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	const tool = "test_input_required_result_elicitation"
	state := inputRequired(t, callTool(t, c, tool, map[string]any{}, nil)).RequestState
	for _, tc := range []struct {
		name  string
		extra map[string]any
	}{
		{"wrong key", map[string]any{"inputResponses": map[string]any{"wrong_key": elicitAccept(map[string]any{"name": "Ada"})}}},
		{"number", map[string]any{"inputResponses": map[string]any{"user_name": 12345}}},
		{"null responses", map[string]any{"inputResponses": nil}},
		{"null answer", map[string]any{"inputResponses": map[string]any{"user_name": nil}}},
		{"unknown action", map[string]any{"inputResponses": map[string]any{"user_name": map[string]any{"action": "maybe"}}}},
		{"empty object", map[string]any{"inputResponses": map[string]any{"user_name": map[string]any{}}}},
		{"wrong key with state", map[string]any{"inputResponses": map[string]any{"wrong_key": 1}, "requestState": state}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := callTool(t, c, tool, map[string]any{}, tc.extra)
			if resp.Error != nil {
				// An error is an allowed answer to a protocol error, but
				// not a server failure.
				if resp.Error.Code == jsonrpc.CodeInternalError {
					t.Errorf("internal error for an invalid answer: %v", resp.Error)
				}
				return
			}
			res := inputRequired(t, resp)
			if !slices.Equal(keys(res), []string{"user_name"}) {
				t.Errorf("asked again for %v, want user_name", keys(res))
			}
		})
	}
	// An invalid sampling answer is asked again too.
	bad := map[string]any{"capital_question": map[string]any{"role": "narrator", "content": map[string]any{"type": "text", "text": "x"}, "model": "m"}}
	res := inputRequired(t, callTool(t, c, "test_input_required_result_sampling", nil, map[string]any{"inputResponses": bad}))
	if !slices.Equal(keys(res), []string{"capital_question"}) {
		t.Errorf("sampling asked again for %v", keys(res))
	}
}

func TestStatelessMultiRound(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	const tool = "test_input_required_result_multi_round"
	r1 := inputRequired(t, callTool(t, c, tool, map[string]any{}, nil))
	if !slices.Equal(keys(r1), []string{"step1"}) || r1.RequestState == "" {
		t.Fatalf("round 1: %v state %q", keys(r1), r1.RequestState)
	}
	if msg, _ := elicitParams(t, r1.InputRequests["step1"]); msg != "Step 1: What is your name?" {
		t.Errorf("step 1 asks %q", msg)
	}
	r2 := inputRequired(t, callTool(t, c, tool, map[string]any{}, map[string]any{
		"inputResponses": map[string]any{"step1": elicitAccept(map[string]any{"name": "Ada"})}, "requestState": r1.RequestState,
	}))
	if !slices.Equal(keys(r2), []string{"step2"}) {
		t.Fatalf("round 2 asks %v, want only step2", keys(r2))
	}
	if msg, _ := elicitParams(t, r2.InputRequests["step2"]); msg != "Step 2: What is your favorite color?" {
		t.Errorf("step 2 asks %q", msg)
	}
	if r2.RequestState == "" || r2.RequestState == r1.RequestState {
		t.Fatalf("round 2 state %q, want a new one (round 1: %q)", r2.RequestState, r1.RequestState)
	}
	step2 := map[string]any{"step2": elicitAccept(map[string]any{"color": "blue"})}
	// Round 3 answers only step2: step1's answer travels in S2.
	if got := toolText(t, callTool(t, c, tool, map[string]any{}, map[string]any{"inputResponses": step2, "requestState": r2.RequestState})); got != "Ada likes blue" {
		t.Errorf("round 3: %q", got)
	}
	// S1 does not carry step1's answer, so step2 alone with S1 asks step1 again.
	again := inputRequired(t, callTool(t, c, tool, map[string]any{}, map[string]any{"inputResponses": step2, "requestState": r1.RequestState}))
	if !slices.Equal(keys(again), []string{"step1"}) {
		t.Errorf("step2 with S1 asks %v, want step1", keys(again))
	}
}

func TestStatelessMultipleInputs(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	const tool = "test_input_required_result_multiple_inputs"
	r1 := inputRequired(t, callTool(t, c, tool, map[string]any{}, nil))
	if got := keys(r1); !slices.Equal(got, []string{"client_roots", "greeting", "user_name"}) || r1.RequestState == "" {
		t.Fatalf("round 1 asks %v (state %q)", got, r1.RequestState)
	}
	for key, method := range map[string]string{"user_name": "elicitation/create", "greeting": "sampling/createMessage", "client_roots": "roots/list"} {
		if got := r1.InputRequests[key].Method; got != method {
			t.Errorf("%s is %s, want %s", key, got, method)
		}
	}
	// Answer one: the other two are asked again, the answer is kept.
	r2 := inputRequired(t, callTool(t, c, tool, map[string]any{}, map[string]any{
		"inputResponses": map[string]any{"user_name": elicitAccept(map[string]any{"name": "Ada"})}, "requestState": r1.RequestState,
	}))
	if got := keys(r2); !slices.Equal(got, []string{"client_roots", "greeting"}) {
		t.Fatalf("round 2 asks %v", got)
	}
	if got := toolText(t, callTool(t, c, tool, map[string]any{}, map[string]any{
		"inputResponses": map[string]any{"greeting": samplingAnswer, "client_roots": rootsAnswer}, "requestState": r2.RequestState,
	})); got != "Paris, Ada (1 roots)" {
		t.Errorf("round 3: %q", got)
	}
	// All three at once, no state.
	if got := toolText(t, callTool(t, c, tool, map[string]any{}, map[string]any{
		"inputResponses": map[string]any{"user_name": elicitAccept(map[string]any{"name": "Bo"}), "greeting": samplingAnswer, "client_roots": rootsAnswer},
	})); got != "Paris, Bo (1 roots)" {
		t.Errorf("all at once: %q", got)
	}
}

func TestStatelessInputOnlyForDeclaredCapabilities(t *testing.T) {
	e := newEnv(t, nil)
	const tool = "test_input_required_result_capabilities"
	for _, tc := range []struct {
		name string
		caps mcp.ClientCapabilities
		want []string
	}{
		{"sampling only", mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}, []string{"sample"}},
		{"elicitation only", mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}, []string{"elicit"}},
		{"both", mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}}, []string{"elicit", "sample"}},
		{"URL elicitation only", mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}}, nil},
		{"neither", mcp.ClientCapabilities{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := e.stateless()
			c.Capabilities = tc.caps
			resp := callTool(t, c, tool, map[string]any{}, nil)
			if tc.want == nil {
				if got := toolText(t, resp); got != "Asked only for what the client declared" {
					t.Errorf("%q", got)
				}
				return
			}
			r1 := inputRequired(t, resp)
			if !slices.Equal(keys(r1), tc.want) {
				t.Fatalf("asks %v, want %v", keys(r1), tc.want)
			}
			answers := map[string]any{"sample": samplingAnswer, "elicit": elicitAccept(map[string]any{"name": "Ada"})}
			if got := toolText(t, callTool(t, c, tool, map[string]any{}, map[string]any{"inputResponses": answers, "requestState": r1.RequestState})); got != "Asked only for what the client declared" {
				t.Errorf("round 2: %q", got)
			}
		})
	}
	// A tool that needs a capability the client lacks says which.
	c := e.stateless()
	c.Capabilities = mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}
	r := c.Request("tools/call", map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{}})
	je := wantError(t, send(t, c, r), r.ID, 400, jsonrpc.CodeMissingCapability)
	if got := mustJSON(je.Data); got != `{"requiredCapabilities":{"elicitation":{}}}` {
		t.Errorf("data %s", got)
	}
}

func TestStatelessInputRequiredPromptAndResource(t *testing.T) {
	r := fixture.New(quiet)
	r.Resource("test://secret/{id}", func(p specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		res, _, err := c.Elicit("Password for "+p.String("id")+"?", params.Must(params.Raw([]byte(`{"type":"object","properties":{"password":{"type":"string"}},"required":["password"]}`))), specter.InputKey("password"))
		if err != nil {
			return specter.Error(err)
		}
		if res["password"] != "open sesame" {
			return specter.Error(specter.ResourceNotFound("test://secret/" + p.String("id")))
		}
		return specter.Reply("the secret of " + p.String("id"))
	}, specter.Description("A resource behind a password"))
	e := newEnv(t, r)
	c := e.stateless()

	const prompt = "test_input_required_result_prompt"
	r1 := inputRequired(t, call(t, c, "prompts/get", map[string]any{"name": prompt}))
	if msg, schema := elicitParams(t, r1.InputRequests["user_context"]); msg != "What context should the prompt use?" ||
		schema != canonical(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`) || len(r1.InputRequests) != 1 {
		t.Errorf("prompt asks %v: %q %s", keys(r1), msg, schema)
	}
	var got mcp.GetPromptResult
	complete(t, call(t, c, "prompts/get", map[string]any{"name": prompt, "inputResponses": map[string]any{"user_context": elicitAccept(map[string]any{"context": "a Go review"})}, "requestState": r1.RequestState}), &got)
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Content.(*mcp.TextContent).Text != "Use this context: a Go review" {
		t.Errorf("prompt messages %s", mustJSON(got.Messages))
	}

	const uri = "test://secret/vault"
	r2 := inputRequired(t, call(t, c, "resources/read", map[string]any{"uri": uri}))
	if msg, _ := elicitParams(t, r2.InputRequests["password"]); msg != "Password for vault?" {
		t.Errorf("resource asks %q", msg)
	}
	var read mcp.ReadResourceResult
	base := complete(t, call(t, c, "resources/read", map[string]any{"uri": uri, "inputResponses": map[string]any{"password": elicitAccept(map[string]any{"password": "open sesame"})}, "requestState": r2.RequestState}), &read)
	if len(read.Contents) != 1 || read.Contents[0].Text == nil || *read.Contents[0].Text != "the secret of vault" || base.TTLMs == nil || base.CacheScope == "" {
		t.Errorf("read %s (ttlMs %v, cacheScope %q)", mustJSON(read.Contents), base.TTLMs, base.CacheScope)
	}
	req := c.Request("resources/read", map[string]any{"uri": uri, "inputResponses": map[string]any{"password": elicitAccept(map[string]any{"password": "guess"})}})
	je := wantError(t, send(t, c, req), req.ID, 400, jsonrpc.CodeInvalidParams)
	if mustJSON(je.Data) != `{"uri":"test://secret/vault"}` {
		t.Errorf("not found data %s", mustJSON(je.Data))
	}
	// Lists never ask for input.
	for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		complete(t, call(t, c, m, nil), nil)
	}
}

// TestStatelessConcurrentInputRequests: a handler may ask for input from
// several goroutines at once; every question is collected, and an
// invalid answer to one does not lose the valid answer to the other.
// Run with -race it also checks that specter guards the answers it
// reads and drops from both goroutines (rounds are repeated, since a
// race shows only when the two actually overlap).
func TestStatelessConcurrentInputRequests(t *testing.T) {
	r := fixture.New(quiet)
	r.Tool("parallel", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		schema := params.Must(params.Raw([]byte(nameSchema)))
		var wg sync.WaitGroup
		var errA, errB error
		wg.Go(func() { _, _, errA = c.Elicit("A?", schema, specter.InputKey("a")) })
		wg.Go(func() { _, _, errB = c.Elicit("B?", schema, specter.InputKey("b")) })
		wg.Wait()
		if err := errors.Join(errA, errB); err != nil {
			return specter.Error(err)
		}
		return specter.Reply("both answered")
	}, specter.Description("Asks two questions from two goroutines"))
	e := newEnv(t, r)
	c := e.stateless()
	r1 := inputRequired(t, callTool(t, c, "parallel", nil, nil))
	if !slices.Equal(keys(r1), []string{"a", "b"}) {
		t.Fatalf("round 1 asks %v", keys(r1))
	}
	var r2 mcptest.StatelessResult
	for range 30 {
		r2 = inputRequired(t, callTool(t, c, "parallel", nil, map[string]any{
			"inputResponses": map[string]any{"a": map[string]any{"action": "maybe"}, "b": elicitAccept(map[string]any{"name": "Bo"})},
			"requestState":   r1.RequestState,
		}))
		if !slices.Equal(keys(r2), []string{"a"}) {
			t.Fatalf("round 2 asks %v, want a again", keys(r2))
		}
	}
	if got := toolText(t, callTool(t, c, "parallel", nil, map[string]any{
		"inputResponses": map[string]any{"a": elicitAccept(map[string]any{"name": "Al"})}, "requestState": r2.RequestState,
	})); got != "both answered" {
		t.Errorf("round 3: %q", got)
	}
}

// TestLegacyResultsStayLegacy: stateless fields never leak into session-era
// answers, even right after the same handlers answered stateless requests.
func TestLegacyResultsStayLegacy(t *testing.T) {
	shared := &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("shared")}}
	sharedPrompt := &mcp.GetPromptResult{Messages: []mcp.PromptMessage{specter.UserMessage("shared")}}
	sharedRead := &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.TextResource("test://shared", "text/plain", "shared")}}
	r := fixture.New(quiet)
	r.Tool("shared_result", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(shared)
	}, specter.Description("Replies with the same result value every time"))
	r.Prompt("shared_prompt", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(sharedPrompt)
	}, specter.Description("Replies with the same prompt value every time"))
	r.Resource("test://shared", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply(sharedRead)
	}, specter.Description("Replies with the same contents value every time"))
	e := newEnv(t, r)
	stateless := e.stateless()
	legacy := e.session(nil, "2025-11-25")

	for _, m := range everyMethod {
		complete(t, call(t, stateless, m.method, m.params), nil)
	}
	complete(t, callTool(t, stateless, "shared_result", nil, nil), nil)
	complete(t, call(t, stateless, "prompts/get", map[string]any{"name": "shared_prompt"}), nil)
	complete(t, call(t, stateless, "resources/read", map[string]any{"uri": "test://shared"}), nil)

	for _, method := range []string{"ping", "logging/setLevel"} {
		var params any
		if method == "logging/setLevel" {
			params = map[string]string{"level": "info"}
		}
		resp, err := legacy.Call(ctx(t), method, params)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"jsonrpc":"2.0","id":` + string(resp.ID) + `,"result":{}}`; string(resp.Body) != want {
			t.Errorf("%s answered %s, want exactly %s", method, resp.Body, want)
		}
	}
	legacyCalls := []struct {
		method string
		params any
	}{
		{"tools/list", nil},
		{"tools/call", map[string]any{"name": "test_simple_text"}},
		{"tools/call", map[string]any{"name": "shared_result"}},
		{"tools/call", map[string]any{"name": "test_simple_text", "_meta": stateless.Meta()}},
		{"prompts/list", nil},
		{"prompts/get", map[string]any{"name": "shared_prompt"}},
		{"resources/list", nil},
		{"resources/templates/list", nil},
		{"resources/read", map[string]any{"uri": "test://static-text"}},
		{"resources/read", map[string]any{"uri": "test://shared"}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": ""}}},
	}
	for _, lc := range legacyCalls {
		resp, err := legacy.Call(ctx(t), lc.method, lc.params)
		if err != nil || resp.Error != nil {
			t.Fatalf("%s: %v %v", lc.method, err, resp.Error)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(resp.Result, &fields); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"resultType", "ttlMs", "cacheScope", "_meta"} {
			if v, ok := fields[k]; ok {
				t.Errorf("session %s %v: result carries %s=%s", lc.method, lc.params, k, v)
			}
		}
	}
}

// flip changes the character at i of a base64url string to another
// character of the alphabet.
func flip(s string, i int) string {
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

// confirm is the answer to the fixture's "confirm" elicitation.
var confirm = map[string]any{"confirm": elicitAccept(map[string]any{"ok": true})}

// wantStateRefused retries tool with state and expects -32602.
func wantStateRefused(t *testing.T, c *mcptest.StatelessClient, method, name, state string) {
	t.Helper()
	p := map[string]any{"inputResponses": confirm, "requestState": state}
	if method == "resources/read" {
		p["uri"] = name
	} else {
		p["name"] = name
		p["arguments"] = map[string]any{}
	}
	r := c.Request(method, p)
	wantError(t, send(t, c, r), r.ID, 400, jsonrpc.CodeInvalidParams)
}

func TestStatelessRequestStateTampered(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	for _, tool := range []string{"test_input_required_result_tampered_state", "test_input_required_result_request_state"} {
		s := inputRequired(t, callTool(t, c, tool, map[string]any{}, nil)).RequestState
		if len(s) < 32 {
			t.Fatalf("requestState %q is too short to be sealed", s)
		}
		for name, bad := range map[string]string{
			"appended":    s + "-TAMPERED",
			"first byte":  flip(s, 0),
			"middle byte": flip(s, len(s)/2),
			"late byte":   flip(s, len(s)-3),
			"truncated":   s[:len(s)-4],
			"doubled":     s + s,
			"not base64":  "not a state!",
			"short":       "AAAA",
		} {
			t.Run(tool+"/"+name, func(t *testing.T) { wantStateRefused(t, c, "tools/call", tool, bad) })
		}
		if got := toolText(t, callTool(t, c, tool, map[string]any{}, map[string]any{"inputResponses": confirm, "requestState": s})); !strings.Contains(got, "state-ok") {
			t.Errorf("%s with its own state: %q", tool, got)
		}
	}
}

func TestStatelessRequestStateExpires(t *testing.T) {
	const tool = "test_input_required_result_request_state"
	expiring := newEnv(t, fixture.New(quiet, specter.InputTimeout(time.Millisecond))).stateless()
	lasting := newEnv(t, nil).stateless()
	// Start just after a second boundary, so that a clock of whole seconds
	// cannot hide the expiry behind the rest of the second.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
	s1 := inputRequired(t, callTool(t, expiring, tool, map[string]any{}, nil)).RequestState
	s2 := inputRequired(t, callTool(t, lasting, tool, map[string]any{}, nil)).RequestState
	time.Sleep(3 * time.Millisecond) // the 1ms TTL lapses, at a clock of milliseconds
	wantStateRefused(t, expiring, "tools/call", tool, s1)
	if got := toolText(t, callTool(t, lasting, tool, map[string]any{}, map[string]any{"inputResponses": confirm, "requestState": s2})); !strings.Contains(got, "state-ok") {
		t.Errorf("a state within the default TTL: %q", got)
	}
}

func TestStatelessRequestStateBoundToCaller(t *testing.T) {
	r := fixture.New(quiet)
	r.Connect(func(c *specter.Context) error {
		if who := c.HTTPRequest().Header.Get("X-User"); who != "" {
			c.SetPrincipal(who)
		}
		return nil
	})
	e := newEnv(t, r)
	as := func(who string) *mcptest.StatelessClient {
		c := e.stateless()
		if who != "" {
			c.Header.Set("X-User", who)
		}
		return c
	}
	const tool = "test_input_required_result_request_state"
	alice, bob, anonymous := as("alice"), as("bob"), as("")
	sa := inputRequired(t, callTool(t, alice, tool, map[string]any{}, nil)).RequestState
	s0 := inputRequired(t, callTool(t, anonymous, tool, map[string]any{}, nil)).RequestState
	wantStateRefused(t, bob, "tools/call", tool, sa)
	wantStateRefused(t, anonymous, "tools/call", tool, sa)
	wantStateRefused(t, alice, "tools/call", tool, s0)
	if got := toolText(t, callTool(t, alice, tool, map[string]any{}, map[string]any{"inputResponses": confirm, "requestState": sa})); !strings.Contains(got, "state-ok") {
		t.Errorf("alice with her state: %q", got)
	}
	if got := toolText(t, callTool(t, anonymous, tool, map[string]any{}, map[string]any{"inputResponses": confirm, "requestState": s0})); !strings.Contains(got, "state-ok") {
		t.Errorf("anonymous with its state: %q", got)
	}
}

func TestStatelessRequestStateBoundToRequest(t *testing.T) {
	r := fixture.New(quiet)
	ask := func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		_, action, err := c.Elicit("Please confirm", params.Must(params.Raw([]byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`))), specter.InputKey("confirm"))
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply("confirmed " + string(action))
	}
	r.Tool("ask", ask, specter.Description("A tool that confirms"))
	r.Prompt("ask", ask, specter.Description("A prompt of the same name that confirms"))
	r.Resource("test://ask/{id}", ask, specter.Description("A resource that confirms"))
	e := newEnv(t, r)
	c := e.stateless()
	st := inputRequired(t, callTool(t, c, "test_input_required_result_request_state", map[string]any{}, nil)).RequestState
	wantStateRefused(t, c, "tools/call", "test_input_required_result_tampered_state", st)
	tool := inputRequired(t, callTool(t, c, "ask", map[string]any{}, nil)).RequestState
	wantStateRefused(t, c, "prompts/get", "ask", tool)
	res := inputRequired(t, call(t, c, "resources/read", map[string]any{"uri": "test://ask/1"})).RequestState
	wantStateRefused(t, c, "resources/read", "test://ask/2", res)
	if got := toolText(t, callTool(t, c, "ask", map[string]any{}, map[string]any{"inputResponses": confirm, "requestState": tool})); got != "confirmed accept" {
		t.Errorf("ask with its own state: %q", got)
	}
}

// TestStatelessRequestStateBoundToArguments: answers given for one set of
// arguments cannot complete a call with others (issue 9, item 11), while
// answers sent up front, without a state, stay the client's to give.
func TestStatelessRequestStateBoundToArguments(t *testing.T) {
	r := fixture.New(quiet)
	r.Tool("deploy", func(p specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		_, action, err := c.Elicit("Deploy to "+p.String("env")+"?", params.Must(params.Raw([]byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`))), specter.InputKey("confirm"))
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply("deployed to " + p.String("env") + ": " + string(action))
	}, specter.Description("Deploys after a confirmation"), params.String("env", params.Required(), params.Description("where")))
	c := newEnv(t, r).stateless()
	staging, production := map[string]any{"env": "staging"}, map[string]any{"env": "production"}
	st := inputRequired(t, callTool(t, c, "deploy", staging, nil)).RequestState
	req := c.Request("tools/call", map[string]any{"name": "deploy", "arguments": production, "inputResponses": confirm, "requestState": st})
	wantError(t, send(t, c, req), req.ID, 400, jsonrpc.CodeInvalidParams)
	if got := toolText(t, callTool(t, c, "deploy", map[string]any{"env": "staging"}, map[string]any{"inputResponses": confirm, "requestState": st})); got != "deployed to staging: accept" {
		t.Errorf("the state's own arguments: %q", got)
	}
	if got := toolText(t, callTool(t, c, "deploy", production, map[string]any{"inputResponses": confirm})); got != "deployed to production: accept" {
		t.Errorf("answers up front, without a state: %q", got)
	}
}

func TestStatelessRequestStateBoundToKey(t *testing.T) {
	const tool = "test_input_required_result_request_state"
	key := []byte("a secret shared by every node of the deployment")
	one := newEnv(t, fixture.New(quiet, specter.StateKey(key))).stateless()
	same := newEnv(t, fixture.New(quiet, specter.StateKey(key))).stateless()
	other := newEnv(t, fixture.New(quiet, specter.StateKey([]byte("another deployment")))).stateless()
	random := newEnv(t, nil).stateless()

	st := inputRequired(t, callTool(t, one, tool, map[string]any{}, nil)).RequestState
	wantStateRefused(t, other, "tools/call", tool, st)
	wantStateRefused(t, random, "tools/call", tool, st)
	if got := toolText(t, callTool(t, same, tool, map[string]any{}, map[string]any{"inputResponses": confirm, "requestState": st})); !strings.Contains(got, "state-ok") {
		t.Errorf("a node sharing the key: %q", got)
	}
	randomState := inputRequired(t, callTool(t, random, tool, map[string]any{}, nil)).RequestState
	wantStateRefused(t, newEnv(t, nil).stateless(), "tools/call", tool, randomState)
}
