package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"

	mgomcp "github.com/mark3labs/mcp-go/mcp"
	mgo "github.com/mark3labs/mcp-go/server"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// mcpgoServer is an MCP server built with mcp-go, with the same tools,
// prompt and resource as sdkServer. Its sampling and elicitation tools
// are multi round-trip handlers: input_required results on the
// 2026-07-28 wire, which mcp-go turns into server requests for clients
// of the session era.
func mcpgoServer() *mgo.MCPServer {
	s := mgo.NewMCPServer("mcp-go-server", "1.0.0", mgo.WithToolCapabilities(true), mgo.WithElicitation(),
		mgo.WithPromptCapabilities(true), mgo.WithResourceCapabilities(false, true))
	s.AddTool(mgomcp.NewTool("greet", mgomcp.WithString("name")), func(_ context.Context, req mgomcp.CallToolRequest) (*mgomcp.CallToolResult, error) {
		return mgomcp.NewToolResultText("Hello, " + req.GetString("name", "")), nil
	})
	s.AddTool(mgomcp.NewTool("progress"), func(ctx context.Context, req mgomcp.CallToolRequest) (*mgomcp.CallToolResult, error) {
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			for i := 1; i <= 3; i++ {
				err := s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": req.Params.Meta.ProgressToken, "progress": i, "total": 3,
				})
				if err != nil {
					return nil, err
				}
			}
		}
		return mgomcp.NewToolResultText("done"), nil
	})
	s.AddTool(mgomcp.NewTool("sample"), func(_ context.Context, req mgomcp.CallToolRequest) (*mgomcp.CallToolResult, error) {
		if res := mgo.SamplingResponse(req.Params.InputResponses, "llm"); res != nil {
			// Content is a TextContent in a session and a decoded map on
			// the 2026-07-28 wire: read it through JSON.
			var text struct{ Text string }
			b, _ := json.Marshal(res.Content)
			_ = json.Unmarshal(b, &text)
			return mgomcp.NewToolResultText("model said: " + text.Text), nil
		}
		return mgo.NewInputRequestBuilder("").Sample("llm", mgomcp.CreateMessageParams{
			Messages:  []mgomcp.SamplingMessage{{Role: mgomcp.RoleUser, Content: mgomcp.NewTextContent("Capital of France?")}},
			MaxTokens: 50,
		}).ToolResult(), nil
	})
	s.AddTool(mgomcp.NewTool("elicit"), func(_ context.Context, req mgomcp.CallToolRequest) (*mgomcp.CallToolResult, error) {
		if res := mgo.ElicitationResponse(req.Params.InputResponses, "who"); res != nil {
			if req.Params.RequestState != "step-1" {
				return mgomcp.NewToolResultError("requestState " + req.Params.RequestState + " is not the one handed out"), nil
			}
			content, _ := res.Content.(map[string]any)
			return mgomcp.NewToolResultText(fmt.Sprintf("%s: %v %v", res.Action, content["name"], content["lang"])), nil
		}
		return mgo.NewInputRequestBuilder("step-1").Elicit("who", mgomcp.ElicitationParams{
			Mode:    mgomcp.ElicitationModeForm,
			Message: "Your name?",
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}, "lang": map[string]any{"type": "string", "default": "Go"}},
				"required":   []string{"name"},
			},
		}).ToolResult(), nil
	})
	s.AddPrompt(mgomcp.NewPrompt("review", mgomcp.WithArgument("code", mgomcp.RequiredArgument())),
		func(_ context.Context, req mgomcp.GetPromptRequest) (*mgomcp.GetPromptResult, error) {
			return mgomcp.NewGetPromptResult("", []mgomcp.PromptMessage{
				mgomcp.NewPromptMessage(mgomcp.RoleUser, mgomcp.NewTextContent("Review: "+req.Params.Arguments["code"])),
			}), nil
		})
	s.AddResource(mgomcp.NewResource("test://readme", "readme", mgomcp.WithMIMEType("text/plain")),
		func(_ context.Context, req mgomcp.ReadResourceRequest) ([]mgomcp.ResourceContents, error) {
			return []mgomcp.ResourceContents{mgomcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me"}}, nil
		})
	return s
}

// TestInteropMCPGoServer drives an mcp-go server over Streamable HTTP in
// both eras: multi round-trip requests on 2026-07-28, the server requests
// mcp-go makes of them in a session.
func TestInteropMCPGoServer(t *testing.T) {
	srv := httptest.NewServer(mgo.NewStreamableHTTPServer(mcpgoServer(), mgo.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))))
	t.Cleanup(srv.Close)
	eras(t, func(t *testing.T, v string) {
		c := connect(t, &client.HTTPTransport{URL: srv.URL}, handlers(&client.Options{Version: v}))
		want := v
		if want == "" {
			want = mcp.Version20260728
		}
		if c.Version() != want || c.ServerInfo().Name != "mcp-go-server" {
			t.Fatalf("version %s, server %+v", c.Version(), c.ServerInfo())
		}
		driveServer(t, c, serverQuirks{noResume: true, looseProgress: true})
	})
}
