package mcptest

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/specter-mcp/specter/mcp"
)

// Caller is what Client (session era) and StatelessClient (2026-07-28) both
// offer, with the same result types, so that one test can run against
// either era. Each method returns a JSON-RPC error as its error (a
// *jsonrpc.Error); the list methods return the first page.
type Caller interface {
	ListTools(ctx context.Context) ([]mcp.Tool, error)
	CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*ToolResult, *Response, error)
	ListPrompts(ctx context.Context) ([]mcp.Prompt, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, *Response, error)
	ListResources(ctx context.Context) ([]mcp.Resource, error)
	ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error)
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, *Response, error)
}

var (
	_ Caller = (*Client)(nil)
	_ Caller = (*StatelessClient)(nil)
)

// ToolResult is a tools/call result as a client decodes it: the
// mcp.CallToolResult, and on the 2026-07-28 wire what every result shares
// and what an input_required result adds (it has no content, and is
// retried with Retry).
type ToolResult struct {
	mcp.CallToolResult
	StatelessResult
}

// UnmarshalJSON decodes both halves of a result.
func (r *ToolResult) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &r.CallToolResult); err != nil {
		return err
	}
	return json.Unmarshal(b, &r.StatelessResult)
}

// PromptResult is a prompts/get result as a client decodes it: the
// mcp.GetPromptResult, and the StatelessResult fields of the 2026-07-28
// wire.
type PromptResult struct {
	mcp.GetPromptResult
	StatelessResult
}

// UnmarshalJSON decodes both halves of a result.
func (r *PromptResult) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &r.GetPromptResult); err != nil {
		return err
	}
	return json.Unmarshal(b, &r.StatelessResult)
}

// CallOption adds to the params of the tools/call that CallTool sends.
type CallOption func(params map[string]any)

// Meta merges m into the request's _meta, over what the client puts
// there itself.
func Meta(m map[string]any) CallOption {
	return func(p map[string]any) {
		meta, _ := p["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			p["_meta"] = meta
		}
		maps.Copy(meta, m)
	}
}

// ProgressToken asks for progress notifications under token (_meta
// progressToken).
func ProgressToken(token any) CallOption { return Meta(map[string]any{"progressToken": token}) }

// Params merges extra into the params.
func Params(extra map[string]any) CallOption {
	return func(p map[string]any) { maps.Copy(p, extra) }
}

// Retry answers a 2026-07-28 input_required result: the requestState it
// carried and the responses to its inputRequests, by key.
func Retry(requestState string, inputResponses map[string]any) CallOption {
	return Params(map[string]any{"requestState": requestState, "inputResponses": inputResponses})
}

// rpc sends one request with params (nil for none) and reads its answer;
// each client supplies its own.
type rpc func(ctx context.Context, method string, params map[string]any) (*Response, error)

// decode sends a request through call and decodes its result into a T,
// which it returns even when decoding fails.
func decode[T any](ctx context.Context, call rpc, method string, params map[string]any) (*T, *Response, error) {
	resp, err := call(ctx, method, params)
	if err != nil {
		return nil, resp, err
	}
	var v T
	return &v, resp, resp.Decode(&v)
}

func listTools(ctx context.Context, call rpc) ([]mcp.Tool, error) {
	res, _, err := decode[mcp.ListToolsResult](ctx, call, mcp.MethodToolsList, nil)
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

func callTool(ctx context.Context, call rpc, name string, args any, opts []CallOption) (*ToolResult, *Response, error) {
	p := map[string]any{"name": name}
	if args != nil {
		p["arguments"] = args
	}
	for _, o := range opts {
		o(p)
	}
	return decode[ToolResult](ctx, call, mcp.MethodToolsCall, p)
}

func listPrompts(ctx context.Context, call rpc) ([]mcp.Prompt, error) {
	res, _, err := decode[mcp.ListPromptsResult](ctx, call, mcp.MethodPromptsList, nil)
	if err != nil {
		return nil, err
	}
	return res.Prompts, nil
}

func getPrompt(ctx context.Context, call rpc, name string, args map[string]string) (*PromptResult, *Response, error) {
	p := map[string]any{"name": name}
	if args != nil {
		p["arguments"] = args
	}
	return decode[PromptResult](ctx, call, mcp.MethodPromptsGet, p)
}

func listResources(ctx context.Context, call rpc) ([]mcp.Resource, error) {
	res, _, err := decode[mcp.ListResourcesResult](ctx, call, mcp.MethodResourcesList, nil)
	if err != nil {
		return nil, err
	}
	return res.Resources, nil
}

func listResourceTemplates(ctx context.Context, call rpc) ([]mcp.ResourceTemplate, error) {
	res, _, err := decode[mcp.ListResourceTemplatesResult](ctx, call, mcp.MethodResourceTemplatesList, nil)
	if err != nil {
		return nil, err
	}
	return res.ResourceTemplates, nil
}

func readResource(ctx context.Context, call rpc, uri string) (*mcp.ReadResourceResult, *Response, error) {
	return decode[mcp.ReadResourceResult](ctx, call, mcp.MethodResourcesRead, map[string]any{"uri": uri})
}

// callMap is Call with params as a map, nil for none.
func (c *Client) callMap(ctx context.Context, method string, params map[string]any) (*Response, error) {
	if params == nil {
		return c.Call(ctx, method, nil)
	}
	return c.Call(ctx, method, params)
}

// ListTools returns the first page of tools/list.
func (c *Client) ListTools(ctx context.Context) ([]mcp.Tool, error) { return listTools(ctx, c.callMap) }

// CallTool calls a tool and decodes its result; opts add _meta (a
// progress token) or other params.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*ToolResult, *Response, error) {
	return callTool(ctx, c.callMap, name, args, opts)
}

// ListPrompts returns the first page of prompts/list.
func (c *Client) ListPrompts(ctx context.Context) ([]mcp.Prompt, error) {
	return listPrompts(ctx, c.callMap)
}

// GetPrompt gets a prompt with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, *Response, error) {
	return getPrompt(ctx, c.callMap, name, args)
}

// ListResources returns the first page of resources/list.
func (c *Client) ListResources(ctx context.Context) ([]mcp.Resource, error) {
	return listResources(ctx, c.callMap)
}

// ListResourceTemplates returns the first page of resources/templates/list.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	return listResourceTemplates(ctx, c.callMap)
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, *Response, error) {
	return readResource(ctx, c.callMap, uri)
}

// ListTools returns the first page of tools/list.
func (c *StatelessClient) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	return listTools(ctx, c.Call)
}

// CallTool calls a tool and decodes its result; opts add _meta (a
// progress token) or other params, such as Retry for an input_required
// result.
func (c *StatelessClient) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*ToolResult, *Response, error) {
	return callTool(ctx, c.Call, name, args, opts)
}

// ListPrompts returns the first page of prompts/list.
func (c *StatelessClient) ListPrompts(ctx context.Context) ([]mcp.Prompt, error) {
	return listPrompts(ctx, c.Call)
}

// GetPrompt gets a prompt with args.
func (c *StatelessClient) GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, *Response, error) {
	return getPrompt(ctx, c.Call, name, args)
}

// ListResources returns the first page of resources/list.
func (c *StatelessClient) ListResources(ctx context.Context) ([]mcp.Resource, error) {
	return listResources(ctx, c.Call)
}

// ListResourceTemplates returns the first page of resources/templates/list.
func (c *StatelessClient) ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	return listResourceTemplates(ctx, c.Call)
}

// ReadResource reads the resource at uri.
func (c *StatelessClient) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, *Response, error) {
	return readResource(ctx, c.Call, uri)
}
