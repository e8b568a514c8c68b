package client_test

import (
	"context"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
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

// WithLog takes the log messages of one call, which then do not reach
// OnLog; the messages of other calls still do.
func TestWithLogTakesTheCallsLogs(t *testing.T) {
	r := specter.NewRouter("logs", "1.0.0", specter.Logger(zerolog.Nop()))
	defer r.Shutdown(context.Background())
	r.Tool("work", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		_ = c.Log(mcp.LevelInfo, "working")
		return specter.Reply("done")
	}, specter.Description("Work and log"))
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			var mu sync.Mutex
			var general, call []any
			c := connect(t, client.InMemory(r.Handler()), &client.Options{Version: v, LogLevel: mcp.LevelDebug,
				OnLog: func(p mcp.LoggingMessageParams) { mu.Lock(); general = append(general, p.Data); mu.Unlock() }})
			if _, err := c.CallTool(t.Context(), "work", nil, client.WithLog(func(p mcp.LoggingMessageParams) {
				mu.Lock()
				call = append(call, p.Data)
				mu.Unlock()
			})); err != nil {
				t.Fatal(err)
			}
			if _, err := c.CallTool(t.Context(), "work", nil); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(call) != 1 || len(general) != 1 {
				t.Errorf("the call's logs %v, OnLog's %v", call, general)
			}
		})
	}
}
