package mcp

import "encoding/json"

// Tool describes a callable tool.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Meta         Meta             `json:"_meta,omitempty"`
}

// ToolExecution says how a tool runs (2025-11-25): TaskSupport is
// "optional" or "required" for a tool that runs as a task, "forbidden"
// or absent otherwise.
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour. Clients must not rely
// on them for security.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ListToolsResult answers tools/list.
type ListToolsResult struct {
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
	ResultBase
}

// CallToolParams is the params of tools/call.
type CallToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// CallToolResult answers tools/call.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	ResultBase
}
