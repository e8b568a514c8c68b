package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SamplingContent is the content of a sampling message or result, typed
// as tool results are: *TextContent, *ImageContent or *AudioContent, and
// from 2025-11-25 *ToolUseContent and *ToolResultContent. The wire has one
// block or, from 2025-11-25, an array of them: a SamplingContent of one
// block encodes as the single object every revision reads, and several
// as an array.
type SamplingContent []Content

// MarshalJSON encodes one block as an object, several as an array.
func (s SamplingContent) MarshalJSON() ([]byte, error) {
	if len(s) == 1 {
		return json.Marshal(s[0])
	}
	return json.Marshal([]Content(s))
}

// UnmarshalJSON decodes a block or an array of blocks, each by its type.
func (s *SamplingContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
		c, err := unmarshalContents(raw)
		if err != nil {
			return err
		}
		*s = c
		return nil
	}
	c, err := UnmarshalContent(b)
	if err != nil {
		return err
	}
	*s = SamplingContent{c}
	return nil
}

// Text returns the text of the content's text blocks, joined by newlines:
// what a model said.
func (s SamplingContent) Text() string {
	var b bytes.Buffer
	for _, c := range s {
		if t, ok := c.(*TextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// ToolUseContent is a model's request to call a tool, in sampling with
// tools (2025-11-25).
type ToolUseContent struct {
	Type  string          `json:"type"` // "tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	Meta  Meta            `json:"_meta,omitempty"`
}

// ToolResultContent is the result of a tool use, given back to the model
// (2025-11-25). Content is typed as a tool result's.
type ToolResultContent struct {
	Type              string          `json:"type"` // "tool_result"
	ToolUseID         string          `json:"toolUseId"`
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              Meta            `json:"_meta,omitempty"`
}

func (*ToolUseContent) ContentType() string    { return "tool_use" }
func (*ToolResultContent) ContentType() string { return "tool_result" }

// UnmarshalJSON decodes the result's content items by their type, as
// those of a CallToolResult, which it mirrors.
func (r *ToolResultContent) UnmarshalJSON(b []byte) error {
	var res CallToolResult
	if err := json.Unmarshal(b, &res); err != nil {
		return err
	}
	var head struct {
		Type      string `json:"type"`
		ToolUseID string `json:"toolUseId"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	for _, c := range res.Content {
		if c.ContentType() == "tool_use" || c.ContentType() == "tool_result" {
			return fmt.Errorf("mcp: a tool result holds %s content", c.ContentType())
		}
	}
	*r = ToolResultContent{Type: head.Type, ToolUseID: head.ToolUseID, Content: res.Content,
		StructuredContent: res.StructuredContent, IsError: res.IsError, Meta: res.Meta}
	return nil
}

// ToolUse is a model's call of the tool name with input (a JSON object),
// for a client's sampling handler to answer with.
func ToolUse(id, name string, input json.RawMessage) *ToolUseContent {
	return &ToolUseContent{Type: "tool_use", ID: id, Name: name, Input: input}
}

// ToolResult is the result of the tool use id, for a server to give the
// model in the next sampling request: the content of a tools/call
// result (res may be one, as Router tools answer it).
func ToolResult(id string, res *CallToolResult) *ToolResultContent {
	c := &ToolResultContent{Type: "tool_result", ToolUseID: id, Content: []Content{}}
	if res != nil {
		c.Content, c.StructuredContent, c.IsError = res.Content, res.StructuredContent, res.IsError
		if c.Content == nil {
			c.Content = []Content{}
		}
	}
	return c
}

// ToolUses returns the tool calls among the content: what a model with
// tools asked for when it stopped with StopReasonToolUse.
func (s SamplingContent) ToolUses() []*ToolUseContent {
	var out []*ToolUseContent
	for _, c := range s {
		if u, ok := c.(*ToolUseContent); ok {
			out = append(out, u)
		}
	}
	return out
}
