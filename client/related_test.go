package client_test

import (
	"context"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

type callKey struct{}

// A server request that arrives on a call's stream is answered in that
// call's context, in every era, so that a handler can tell which call
// caused it (a gateway relays it to that call's own caller).
func TestInputHandlersGetTheCallsContext(t *testing.T) {
	url := serve(t)
	eras(t, func(t *testing.T, v string) {
		opts := handlers(&client.Options{Version: v})
		seen := map[string]any{}
		sample := opts.Sampling
		opts.Sampling = func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			seen["sampling"] = ctx.Value(callKey{})
			return sample(ctx, p)
		}
		elicit := opts.Elicitation
		opts.Elicitation = func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			seen["elicitation"] = ctx.Value(callKey{})
			return elicit(ctx, p)
		}
		c := connect(t, &client.HTTPTransport{URL: url}, opts)
		for tool, args := range map[string]map[string]any{
			"test_sampling":    {"prompt": "Capital of France?"},
			"test_elicitation": {"message": "Who?"},
		} {
			ctx := context.WithValue(t.Context(), callKey{}, tool)
			if _, err := c.CallTool(ctx, tool, args); err != nil {
				t.Fatal(err)
			}
		}
		if seen["sampling"] != "test_sampling" || seen["elicitation"] != "test_elicitation" {
			t.Errorf("handlers saw the calls %v", seen)
		}
	})
}
