package methods

// The shapes below turn the value a handler replies with into the result
// of its MCP method: a tools/call, prompts/get or resources/read result.
// The rules are the ones specter.Reply documents.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/specter-mcp/specter/mcp"
)

// textResult is a tool result of one text content.
type textResult struct {
	res     mcp.CallToolResult
	content [1]mcp.Content
	text    mcp.TextContent
}

// ToolResult wraps a reply as a tool result. A string becomes text content,
// content values pass through, a result is copied (a handler may share
// it between requests, and it is decorated per request), and any other
// value is encoded as JSON text, and also as structuredContent when
// structured is set and the JSON is an object. Content is never null.
func ToolResult(v any, structured bool) (*mcp.CallToolResult, error) {
	if s, ok := v.(string); ok {
		// The commonest reply: the result, its content and the text in
		// one allocation.
		t := &textResult{text: mcp.TextContent{Type: "text", Text: s}}
		t.content[0] = &t.text
		t.res.Content = t.content[:]
		return &t.res, nil
	}
	res := &mcp.CallToolResult{}
	switch x := v.(type) {
	case nil:
		res.Content = []mcp.Content{}
	case *mcp.CallToolResult:
		c := *x
		if c.Content == nil {
			c.Content = []mcp.Content{}
		}
		return &c, nil
	case mcp.CallToolResult:
		return ToolResult(&x, structured)
	case string:
		res.Content = []mcp.Content{mcp.Text(x)}
	case mcp.Content:
		res.Content = []mcp.Content{x}
	case []mcp.Content:
		res.Content = x
	default:
		b, err := JSON(v)
		if err != nil {
			return nil, fmt.Errorf("encode tool reply %T: %w", v, err)
		}
		res.Content = []mcp.Content{mcp.Text(string(b))}
		if structured && len(b) > 0 && b[0] == '{' {
			res.StructuredContent = b
		}
	}
	return res, nil
}

// ToolError is the isError tool result for an error the model should read.
func ToolError(message string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text(message)}, IsError: true}
}

// PromptResult wraps a reply as a prompt result with the prompt's description.
// A string or content becomes a user message, messages pass through, and
// any other value becomes a user message of its JSON. It fails for a
// message whose role is neither user nor assistant.
func PromptResult(v any, description string) (*mcp.GetPromptResult, error) {
	res := &mcp.GetPromptResult{Description: description}
	switch x := v.(type) {
	case *mcp.GetPromptResult:
		c := *x
		return &c, nil
	case mcp.GetPromptResult:
		return &x, nil
	case string:
		res.Messages = []mcp.PromptMessage{PromptMessage(mcp.RoleUser, x)}
	case mcp.PromptMessage:
		res.Messages = []mcp.PromptMessage{x}
	case []mcp.PromptMessage:
		res.Messages = x
	case mcp.Content:
		res.Messages = []mcp.PromptMessage{PromptMessage(mcp.RoleUser, x)}
	case []mcp.Content:
		for _, c := range x {
			res.Messages = append(res.Messages, PromptMessage(mcp.RoleUser, c))
		}
	default:
		b, err := JSON(v)
		if err != nil {
			return nil, fmt.Errorf("encode prompt reply %T: %w", v, err)
		}
		res.Messages = []mcp.PromptMessage{PromptMessage(mcp.RoleUser, string(b))}
	}
	if res.Messages == nil {
		res.Messages = []mcp.PromptMessage{}
	}
	for _, m := range res.Messages {
		if m.Role != mcp.RoleUser && m.Role != mcp.RoleAssistant {
			return nil, fmt.Errorf("prompt message role %q: use user or assistant", m.Role)
		}
	}
	return res, nil
}

// PromptMessage is a prompt message; content is an mcp.Content, a string (text
// content), or any other value, formatted with fmt.Sprint.
func PromptMessage(role mcp.Role, content any) mcp.PromptMessage {
	switch c := content.(type) {
	case mcp.Content:
		return mcp.PromptMessage{Role: role, Content: c}
	case string:
		return mcp.PromptMessage{Role: role, Content: mcp.Text(c)}
	}
	return mcp.PromptMessage{Role: role, Content: mcp.Text(fmt.Sprint(content))}
}

// ResourceResult wraps a reply as the contents of the resource at uri. A string
// is text, a []byte binary contents, and any other value JSON; mimeType,
// when set, overrides their default types (text/plain,
// application/octet-stream, application/json). Contents without a URI
// get uri.
func ResourceResult(v any, uri, mimeType string) (*mcp.ReadResourceResult, error) {
	one := func(c mcp.ResourceContents) *mcp.ReadResourceResult {
		if c.URI == "" {
			c.URI = uri
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{c}}
	}
	switch x := v.(type) {
	case *mcp.ReadResourceResult:
		c := *x
		return &c, nil
	case mcp.ResourceContents:
		return one(x), nil
	case []mcp.ResourceContents:
		for i := range x {
			if x[i].URI == "" {
				x[i].URI = uri
			}
		}
		return &mcp.ReadResourceResult{Contents: x}, nil
	case string:
		return one(mcp.TextResource(uri, or(mimeType, "text/plain"), x)), nil
	case []byte:
		return one(mcp.BlobResource(uri, or(mimeType, "application/octet-stream"), base64.StdEncoding.EncodeToString(x))), nil
	}
	b, err := JSON(v)
	if err != nil {
		return nil, fmt.Errorf("encode resource reply %T: %w", v, err)
	}
	return one(mcp.TextResource(uri, or(mimeType, "application/json"), string(b))), nil
}

// JSON encodes v; a json.RawMessage is taken as it is, once checked.
func JSON(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, errors.New("invalid JSON")
		}
		return raw, nil
	}
	return json.Marshal(v)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
