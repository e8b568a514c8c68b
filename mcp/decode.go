package mcp

import (
	"encoding/json"
	"fmt"
)

// UnmarshalContent decodes one content item by its "type": text, image,
// audio, resource_link or resource, and the tool_use and tool_result of
// sampling.
func UnmarshalContent(b []byte) (Content, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("mcp: content: %w", err)
	}
	var c Content
	switch head.Type {
	case "text":
		c = &TextContent{}
	case "image":
		c = &ImageContent{}
	case "audio":
		c = &AudioContent{}
	case "resource_link":
		c = &ResourceLink{}
	case "resource":
		c = &EmbeddedResource{}
	case "tool_use":
		c = &ToolUseContent{}
	case "tool_result":
		c = &ToolResultContent{}
	default:
		return nil, fmt.Errorf("mcp: unknown content type %q", head.Type)
	}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("mcp: %s content: %w", head.Type, err)
	}
	return c, nil
}

func unmarshalContents(raw []json.RawMessage) ([]Content, error) {
	out := make([]Content, 0, len(raw))
	for _, r := range raw {
		c, err := UnmarshalContent(r)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// UnmarshalJSON decodes the content items by their type.
func (r *CallToolResult) UnmarshalJSON(b []byte) error {
	type plain CallToolResult
	var w struct {
		plain
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	content, err := unmarshalContents(w.Content)
	if err != nil {
		return err
	}
	*r = CallToolResult(w.plain)
	r.Content = content
	return nil
}

// UnmarshalJSON decodes the content item by its type.
func (m *PromptMessage) UnmarshalJSON(b []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c, err := UnmarshalContent(w.Content)
	if err != nil {
		return err
	}
	m.Role, m.Content = w.Role, c
	return nil
}
