package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestFoo(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicUser)
	c.initialize(nil)

	res, _ := c.callTool("foo", map[string]any{"bar": "baz"}, nil)
	var out struct {
		Bar string `json:"bar"`
	}
	if res.IsError || json.Unmarshal(res.StructuredContent, &out) != nil || out.Bar != "baz" {
		t.Errorf("foo(bar=baz) = %+v, want structuredContent with bar", res)
	}

	for name, args := range map[string]map[string]any{
		"missing":    {},
		"empty":      {"bar": ""},
		"too long":   {"bar": strings.Repeat("b", 65)},
		"wrong type": {"bar": 7},
	} {
		res, _ := c.callTool("foo", args, nil)
		if !res.IsError || !strings.Contains(res.text(), `"bar"`) {
			t.Errorf("foo with bar %s = %+v, want isError naming \"bar\"", name, res)
		}
	}
}

func TestGetStudy(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, basicUser)
	c.initialize(nil)

	res, _ := c.callTool("get_study", map[string]any{"id": "007"}, nil)
	var s Study
	if res.IsError || json.Unmarshal(res.StructuredContent, &s) != nil || s.ID != "007" {
		t.Errorf("get_study(007) = %+v", res)
	}
	for args, want := range map[string]string{`{"id":"999"}`: "999", `{}`: `"id"`} {
		res, _ := c.callTool("get_study", json.RawMessage(args), nil)
		if !res.IsError || !strings.Contains(res.text(), want) {
			t.Errorf("get_study(%s) = %+v, want isError mentioning %s", args, res, want)
		}
	}
}

func TestLongTaskStreamsProgressThenReplies(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, ultraUser)
	c.initialize(nil)

	const steps = 3
	res, notes := c.callTool("long_task", map[string]any{"steps": steps}, map[string]any{"progressToken": "tok-1"})
	var out struct {
		Steps int `json:"steps"`
	}
	if res.IsError || json.Unmarshal(res.StructuredContent, &out) != nil || out.Steps != steps {
		t.Fatalf("long_task = %+v", res)
	}
	progress, logs := 0, 0
	for _, n := range notes {
		switch n.Method {
		case "notifications/progress":
			var p struct {
				ProgressToken string  `json:"progressToken"`
				Progress      float64 `json:"progress"`
				Total         float64 `json:"total"`
			}
			if err := json.Unmarshal(n.Params, &p); err != nil || p.ProgressToken != "tok-1" || p.Total != steps {
				t.Errorf("progress notification %s", n.Params)
			}
			progress++
			if p.Progress != float64(progress) {
				t.Errorf("progress %v, want %d", p.Progress, progress)
			}
		case "notifications/message":
			logs++
		}
	}
	if progress != steps || logs != steps {
		t.Errorf("got %d progress and %d log notifications before the reply, want %d of each", progress, logs, steps)
	}
}

func TestLongTaskDefaultsAndLimitsSteps(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, ultraUser)
	c.initialize(nil)
	res, _ := c.callTool("long_task", map[string]any{"steps": 21}, nil)
	if !res.IsError || !strings.Contains(res.text(), `"steps"`) {
		t.Errorf("long_task(steps=21) = %+v, want isError naming steps", res)
	}

	var tools struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	c.result("tools/list", map[string]any{}, &tools)
	for _, tool := range tools.Tools {
		if tool.Name != "long_task" {
			continue
		}
		var schema struct {
			Properties struct {
				Steps struct {
					Default int `json:"default"`
					Maximum int `json:"maximum"`
				} `json:"steps"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.Properties.Steps.Default != 5 || schema.Properties.Steps.Maximum != 20 {
			t.Errorf("long_task input schema %s, want steps with default 5 and maximum 20", tool.InputSchema)
		}
	}
}

func TestWhoamiElicitsTheName(t *testing.T) {
	srv := startApp(t)
	for action, want := range map[string]string{
		"accept":  "Hello, Ada!",
		"decline": "You prefer not to say your name. Hello anyway!",
	} {
		c := newClient(t, srv, basicUser)
		c.initialize(map[string]any{"elicitation": map[string]any{}})
		asked := 0
		c.answer = func(method string, params json.RawMessage) any {
			asked++
			var p struct {
				Message         string `json:"message"`
				RequestedSchema struct {
					Required []string `json:"required"`
				} `json:"requestedSchema"`
			}
			if method != "elicitation/create" || json.Unmarshal(params, &p) != nil ||
				p.Message != "What is your name?" || len(p.RequestedSchema.Required) != 1 || p.RequestedSchema.Required[0] != "name" {
				t.Errorf("server asked %s %s", method, params)
			}
			if action == "accept" {
				return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}
			}
			return map[string]any{"action": action}
		}
		res, _ := c.callTool("whoami", map[string]any{}, nil)
		if asked != 1 || res.IsError || res.text() != want {
			t.Errorf("%s: asked %d times, whoami = %+v, want %q", action, asked, res, want)
		}
	}
}

func TestWhoamiWithoutElicitationUsesTheTokensUser(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, ultraUser)
	c.initialize(nil)
	res, _ := c.callTool("whoami", map[string]any{}, nil)
	if res.IsError || !strings.Contains(res.text(), "Ursula Ultra") {
		t.Errorf("whoami without elicitation = %+v, want the ultra user's name", res)
	}
}

func TestLongTaskStopsWhenCancelled(t *testing.T) {
	srv := startApp(t)
	c := newClient(t, srv, ultraUser)
	c.initialize(nil)

	resp := c.post(map[string]any{"jsonrpc": "2.0", "id": 100, "method": "tools/call", "params": map[string]any{
		"name": "long_task", "arguments": map[string]any{"steps": 20}, "_meta": map[string]any{"progressToken": "tok-2"},
	}})
	defer drain(resp)
	// The answer's headers come with the first progress notification,
	// so the work is running now.
	cancel := c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 100, "reason": "test"}})
	drain(cancel)
	if cancel.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: status %d, want 202", cancel.StatusCode)
	}
	// Counted, not timed: a step sends a progress notification and a log,
	// so all 40 mean that cancelling did not stop the work.
	res, notes := c.readStream("tools/call", "100", resp.Body)
	if len(notes) >= 2*20 {
		t.Errorf("got %d notifications: all 20 steps ran; cancelling did not stop the work", len(notes))
	}
	// MCP asks servers not to answer cancelled requests; if an answer
	// comes anyway, it must say that the work stopped.
	if res != nil {
		var tr toolResult
		if res.Error != nil || json.Unmarshal(res.Result, &tr) != nil || !tr.IsError || !strings.Contains(tr.text(), "stopped after") {
			t.Errorf("cancelled long_task answered %s %+v", res.Result, res.Error)
		}
	}
}
