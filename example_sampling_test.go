package specter_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// A tool lets the client's model call a tool while sampling (SEP-1577):
// the model asks for get_time, the server runs it and asks again with the
// result.
func ExampleContext_Sample_withTools() {
	r := specter.NewRouter("clock", "1.0.0", specter.Logger(zerolog.Nop()))
	getTime := mcp.Tool{Name: "get_time", InputSchema: json.RawMessage(`{"type":"object"}`)}
	r.Tool("greet", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		p := &mcp.CreateMessageParams{MaxTokens: 100, Tools: []mcp.Tool{getTime},
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{mcp.Text("Greet for the time of day")}}}}
		for {
			res, err := c.Sample(p)
			if err != nil {
				return specter.Error(err)
			}
			if res.StopReason != mcp.StopReasonToolUse {
				return specter.Reply(res.Content.Text())
			}
			var results mcp.SamplingContent
			for _, use := range res.Content.ToolUses() {
				results = append(results, mcp.ToolResult(use.ID, &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("09:00")}}))
			}
			p.Messages = append(p.Messages, mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: res.Content},
				mcp.SamplingMessage{Role: mcp.RoleUser, Content: results})
		}
	}, specter.Description("Greet the user"))

	// The client's model: it calls get_time, then answers.
	sampling := func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		last := p.Messages[len(p.Messages)-1].Content[0]
		if tr, ok := last.(*mcp.ToolResultContent); ok {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m",
				Content: mcp.SamplingContent{mcp.Text("Good morning, it is " + tr.Content[0].(*mcp.TextContent).Text)}}, nil
		}
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", StopReason: mcp.StopReasonToolUse,
			Content: mcp.SamplingContent{mcp.ToolUse("t1", "get_time", json.RawMessage(`{}`))}}, nil
	}
	c, err := client.Connect(context.Background(), client.InMemory(r.Handler()),
		&client.Options{Sampling: sampling, SamplingTools: true})
	if err != nil {
		panic(err)
	}
	defer c.Close(context.Background())
	res, err := c.CallTool(context.Background(), "greet", nil)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, err)
	// Output:
	// Good morning, it is 09:00 <nil>
}
