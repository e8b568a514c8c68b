package methods

import (
	"encoding/json"
	"testing"

	"github.com/specter-mcp/specter/mcp"
)

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type point struct {
	X int `json:"x"`
}

func TestTool(t *testing.T) {
	shared := &mcp.CallToolResult{}
	for _, tc := range []struct {
		name       string
		v          any
		structured bool
		want       string
	}{
		{"nil", nil, true, `{"content":[]}`},
		{"string", "hi", true, `{"content":[{"type":"text","text":"hi"}]}`},
		{"content", mcp.Text("a"), true, `{"content":[{"type":"text","text":"a"}]}`},
		{"contents", []mcp.Content{mcp.Text("a"), mcp.Text("b")}, true, `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`},
		{"object", point{1}, true, `{"content":[{"type":"text","text":"{\"x\":1}"}],"structuredContent":{"x":1}}`},
		{"object, no structured content", point{1}, false, `{"content":[{"type":"text","text":"{\"x\":1}"}]}`},
		{"array", []int{1}, true, `{"content":[{"type":"text","text":"[1]"}]}`},
		{"raw", json.RawMessage(`{"a":true}`), true, `{"content":[{"type":"text","text":"{\"a\":true}"}],"structuredContent":{"a":true}}`},
		{"result", shared, true, `{"content":[]}`},
		{"result value", mcp.CallToolResult{IsError: true}, true, `{"content":[],"isError":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ToolResult(tc.v, tc.structured)
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(t, res); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if res, _ := ToolResult(shared, true); res == shared || shared.Content != nil {
		t.Error("Tool changed or returned the handler's shared result")
	}
	for _, bad := range []any{json.RawMessage(`{`), make(chan int)} {
		if _, err := ToolResult(bad, true); err == nil {
			t.Errorf("ToolResult(%T) did not fail", bad)
		}
	}
	if got := encode(t, ToolError("no")); got != `{"content":[{"type":"text","text":"no"}],"isError":true}` {
		t.Errorf("ToolError: %s", got)
	}
}

func TestPrompt(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"string", "hi", `{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`},
		{"message", PromptMessage(mcp.RoleAssistant, "a"), `{"description":"d","messages":[{"role":"assistant","content":{"type":"text","text":"a"}}]}`},
		{"contents", []mcp.Content{mcp.Text("a")}, `{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"a"}}]}`},
		{"no messages", []mcp.PromptMessage(nil), `{"description":"d","messages":[]}`},
		{"value", point{2}, `{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"{\"x\":2}"}}]}`},
		{"result", &mcp.GetPromptResult{Messages: []mcp.PromptMessage{}}, `{"messages":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := PromptResult(tc.v, "d")
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(t, res); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if _, err := PromptResult(PromptMessage("system", "x"), "d"); err == nil {
		t.Error("a system message was accepted")
	}
	if m := PromptMessage(mcp.RoleUser, 7); encode(t, m) != `{"role":"user","content":{"type":"text","text":"7"}}` {
		t.Errorf("PromptMessage(7) = %s", encode(t, m))
	}
}

func TestResource(t *testing.T) {
	for _, tc := range []struct {
		name, mime string
		v          any
		want       string
	}{
		{"text", "", "hi", `{"contents":[{"uri":"u://x","mimeType":"text/plain","text":"hi"}]}`},
		{"text typed", "text/markdown", "hi", `{"contents":[{"uri":"u://x","mimeType":"text/markdown","text":"hi"}]}`},
		{"bytes", "", []byte{1, 2}, `{"contents":[{"uri":"u://x","mimeType":"application/octet-stream","blob":"AQI="}]}`},
		{"json", "", point{3}, `{"contents":[{"uri":"u://x","mimeType":"application/json","text":"{\"x\":3}"}]}`},
		{"contents without uri", "", mcp.TextResource("", "text/plain", "a"), `{"contents":[{"uri":"u://x","mimeType":"text/plain","text":"a"}]}`},
		{"contents list", "", []mcp.ResourceContents{mcp.TextResource("u://y", "", "a"), mcp.TextResource("", "", "b")}, `{"contents":[{"uri":"u://y","text":"a"},{"uri":"u://x","text":"b"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ResourceResult(tc.v, "u://x", tc.mime)
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(t, res); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if _, err := ResourceResult(json.RawMessage(`nope`), "u://x", ""); err == nil {
		t.Error("invalid raw JSON was accepted")
	}
}
