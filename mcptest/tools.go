package mcptest

import (
	"context"
	"encoding/json"

	"github.com/specter-mcp/specter/mcp"
)

// Content is one content item of a result, decoded loosely.
type Content struct {
	Type     string                `json:"type"`
	Text     string                `json:"text,omitempty"`
	Data     string                `json:"data,omitempty"`
	MIMEType string                `json:"mimeType,omitempty"`
	URI      string                `json:"uri,omitempty"`
	Resource *mcp.ResourceContents `json:"resource,omitempty"`
}

// ToolResult is a tools/call result as a client decodes it.
type ToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// ListTools returns the first page of tools/list.
func (c *Client) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	resp, err := c.Call(ctx, "tools/list", nil)
	if err != nil {
		return nil, err
	}
	var res mcp.ListToolsResult
	return res.Tools, resp.Decode(&res)
}

// CallTool calls a tool and decodes its result. A JSON-RPC error comes
// back as the error (a *jsonrpc.Error).
func (c *Client) CallTool(ctx context.Context, name string, args any) (*ToolResult, *Response, error) {
	p := map[string]any{"name": name}
	if args != nil {
		p["arguments"] = args
	}
	resp, err := c.Call(ctx, "tools/call", p)
	if err != nil {
		return nil, resp, err
	}
	var res ToolResult
	return &res, resp, resp.Decode(&res)
}
