package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

var weatherTool = mcp.Tool{Name: "get_weather", Description: "The weather in a city",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

// samplingToolsRouter has a tool that lets the client's model call
// get_weather while sampling, runs the calls, and asks again.
func samplingToolsRouter() *specter.Router {
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("plan_trip", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		p := &mcp.CreateMessageParams{MaxTokens: 200, Tools: []mcp.Tool{weatherTool}, ToolChoice: &mcp.ToolChoice{Mode: mcp.ToolChoiceAuto},
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{mcp.Text("Should I pack an umbrella for Oslo?")}}}}
		res, err := c.Sample(p)
		if err != nil {
			return specter.Error(err)
		}
		if res.StopReason != mcp.StopReasonToolUse {
			return specter.Reply("no tool use: " + res.Content.Text())
		}
		var results mcp.SamplingContent
		for _, use := range res.Content.ToolUses() {
			var in struct{ City string }
			_ = json.Unmarshal(use.Input, &in)
			results = append(results, mcp.ToolResult(use.ID, &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("rain in " + in.City)}}))
		}
		p.Messages = append(p.Messages, mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: res.Content},
			mcp.SamplingMessage{Role: mcp.RoleUser, Content: results})
		p.ToolChoice = &mcp.ToolChoice{Mode: mcp.ToolChoiceNone}
		final, err := c.Sample(p)
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(final.Content.Text())
	}, specter.Description("Plan a trip"))
	return r
}

// model is a client's sampling handler that calls get_weather once, then
// answers from the tool result it gets back.
func model(seen *[]string, mu *sync.Mutex) func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		mu.Lock()
		*seen = append(*seen, fmt.Sprintf("tools=%d choice=%s messages=%d", len(p.Tools), p.ToolChoice.Mode, len(p.Messages)))
		mu.Unlock()
		last := p.Messages[len(p.Messages)-1]
		if tr, ok := last.Content[0].(*mcp.ToolResultContent); ok {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", StopReason: "endTurn",
				Content: mcp.SamplingContent{mcp.Text("Yes: " + tr.Content[0].(*mcp.TextContent).Text + " (" + tr.ToolUseID + ")")}}, nil
		}
		if len(p.Tools) == 0 || p.Tools[0].Name != "get_weather" {
			return nil, errors.New("no get_weather tool offered")
		}
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", StopReason: mcp.StopReasonToolUse,
			Content: mcp.SamplingContent{mcp.ToolUse("call-1", "get_weather", json.RawMessage(`{"city":"Oslo"}`))}}, nil
	}
}

func TestSamplingWithToolsThroughTheClient(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			r := samplingToolsRouter()
			srv := httptest.NewServer(r.Handler())
			t.Cleanup(srv.Close)
			var mu sync.Mutex
			var seen []string
			c, err := client.Connect(ctx(t), &client.HTTPTransport{URL: srv.URL, Client: srv.Client()},
				&client.Options{Version: version, Sampling: model(&seen, &mu), SamplingTools: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx(t))
			res, err := c.CallTool(ctx(t), "plan_trip", nil)
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Yes: rain in Oslo (call-1)" {
				t.Fatalf("plan_trip: %+v %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(seen, "; ") != "tools=1 choice=auto messages=1; tools=1 choice=none messages=3" &&
				// 2026-07-28 runs the handler again per round, asking both questions in the last.
				strings.Join(seen, "; ") != "tools=1 choice=auto messages=1; tools=1 choice=auto messages=1; tools=1 choice=none messages=3" {
				t.Errorf("the model saw %q", seen)
			}
		})
	}
}

func TestSamplingWithToolsNeedsTheCapability(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			srv := httptest.NewServer(samplingToolsRouter().Handler())
			t.Cleanup(srv.Close)
			var mu sync.Mutex
			var seen []string
			c, err := client.Connect(ctx(t), &client.HTTPTransport{URL: srv.URL, Client: srv.Client()},
				&client.Options{Version: version, Sampling: model(&seen, &mu)})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx(t))
			_, err = c.CallTool(ctx(t), "plan_trip", nil)
			if err == nil || !strings.Contains(err.Error(), "sampling.tools") {
				t.Fatalf("a client without sampling.tools: %v", err)
			}
			if len(seen) != 0 {
				t.Errorf("the model was asked: %q", seen)
			}
		})
	}
}

// TestSamplingWithToolsOnTheWire checks the server's requests against the
// official schemas, in a session and as 2026-07-28 input requests.
func TestSamplingWithToolsOnTheWire(t *testing.T) {
	e := newEnv(t, samplingToolsRouter())
	var mu sync.Mutex
	var seen []string
	answer := model(&seen, &mu)
	sc := e.newClient(nil)
	sc.Capabilities.Sampling = &mcp.SamplingCapability{Tools: &struct{}{}}
	sc.OnRequest = func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
		var p mcp.CreateMessageParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%v", err)
		}
		res, err := answer(context.Background(), &p)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "%v", err)
		}
		return res, nil
	}
	e.session(sc, mcp.Version20251125)
	res, _, err := sc.CallTool(ctx(t), "plan_trip", nil)
	if err != nil || text(t, res) != "Yes: rain in Oslo (call-1)" {
		t.Fatalf("session: %+v %v", res, err)
	}

	st := e.stateless()
	st.Capabilities.Sampling = &mcp.SamplingCapability{Tools: &struct{}{}}
	var state string
	responses := map[string]any{}
	for round := 1; ; round++ {
		extra := map[string]any{"inputResponses": responses}
		if state != "" {
			extra["requestState"] = state
		}
		resp := callTool(t, st, "plan_trip", nil, extra)
		var out struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  string                     `json:"requestState"`
			Content       []struct{ Text string }    `json:"content"`
		}
		if err := json.Unmarshal(resp.Result, &out); err != nil {
			t.Fatal(err)
		}
		if out.ResultType != mcp.ResultInputRequired {
			if len(out.Content) == 0 || out.Content[0].Text != "Yes: rain in Oslo (call-1)" {
				t.Fatalf("stateless: %s", resp.Result)
			}
			break
		}
		if round > 3 {
			t.Fatalf("still asking after %d rounds: %s", round, resp.Result)
		}
		state = out.RequestState
		for key, raw := range out.InputRequests {
			var req struct{ Params mcp.CreateMessageParams }
			if err := json.Unmarshal(raw, &req); err != nil {
				t.Fatal(err)
			}
			r, err := answer(context.Background(), &req.Params)
			if err != nil {
				t.Fatal(err)
			}
			responses[key] = r
		}
	}
	if e.checked.Load() == 0 {
		t.Error("no message was schema-checked")
	}
}
