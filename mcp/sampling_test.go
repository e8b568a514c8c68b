package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/specter-mcp/specter/mcp"
)

// TestSamplingContent decodes both forms of sampling content into typed
// blocks, tool use and tool result included, and encodes them back in the
// form they came in.
func TestSamplingContent(t *testing.T) {
	for _, tc := range []struct{ name, wire string }{
		{"one block", `{"role":"user","content":{"type":"text","text":"Capital of France?"}}`},
		{"blocks", `{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"u1","name":"search","input":{"q":"capital of France"}}]}`},
		{"tool result", `{"role":"user","content":{"type":"tool_result","toolUseId":"u1","content":[{"type":"text","text":"Paris"}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m mcp.SamplingMessage
			if err := json.Unmarshal([]byte(tc.wire), &m); err != nil {
				t.Fatal(err)
			}
			switch tc.name {
			case "one block":
				if len(m.Content) != 1 || m.Content.Text() != "Capital of France?" {
					t.Errorf("content %#v", m.Content)
				}
			case "blocks":
				use, ok := m.Content[1].(*mcp.ToolUseContent)
				if len(m.Content) != 2 || m.Content.Text() != "Let me look." || !ok || use.Name != "search" || string(use.Input) != `{"q":"capital of France"}` {
					t.Errorf("content %#v", m.Content)
				}
			case "tool result":
				res, ok := m.Content[0].(*mcp.ToolResultContent)
				if !ok || res.ToolUseID != "u1" || res.Content[0].(*mcp.TextContent).Text != "Paris" {
					t.Errorf("content %#v", m.Content)
				}
			}
			out, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.wire {
				t.Errorf("encoded back as %s", out)
			}
		})
	}
	// An array of one block means the same as the block, which every
	// revision reads.
	var m mcp.SamplingMessage
	if err := json.Unmarshal([]byte(`{"role":"user","content":[{"type":"text","text":"hi"}]}`), &m); err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(m); string(out) != `{"role":"user","content":{"type":"text","text":"hi"}}` {
		t.Errorf("one block in an array encoded back as %s", out)
	}
	for _, bad := range []string{
		`{"role":"user","content":{"type":"video","data":""}}`,
		`{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[{"type":"tool_use","id":"u2","name":"x","input":{}}]}]}`,
	} {
		if err := json.Unmarshal([]byte(bad), &m); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}
