package transform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/transform"
)

// A downstream tool renamed, its tenant fixed, its query argument renamed
// and its text results upper-cased.
func ExampleApply() {
	tool := mcp.Tool{
		Name:        "search",
		Description: "Search the index",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"tenant":{"type":"string"}},"required":["q","tenant"]}`),
	}
	x, err := transform.Apply(tool, transform.Tool{
		Name:        "find",
		Description: "Find documents of Acme",
		Args: map[string]transform.Arg{
			"q":      {Name: "query", Description: "What to find"},
			"tenant": {Value: "acme"},
		},
		Result: func(_ context.Context, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					t.Text = strings.ToUpper(t.Text)
				}
			}
			return res, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x.Tool().Name, string(x.Tool().InputSchema))

	// A call of "find" becomes a call of the original.
	args, _ := x.Arguments(map[string]any{"query": "gophers"})
	fmt.Println(x.Original(), args)
	res, _ := x.Result(context.Background(), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Type: "text", Text: "2 found"}}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// find {"properties":{"query":{"description":"What to find","type":"string"}},"required":["query"],"type":"object"}
	// search map[q:gophers tenant:acme]
	// 2 FOUND
}
