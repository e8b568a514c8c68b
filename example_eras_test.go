package specter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// One handler answers both protocol eras: in a session Elicit sends
// elicitation/create on the request's stream and waits for the answer; on
// the 2026-07-28 wire it answers input_required, and the client's retry
// runs the handler again with the answer.
func ExampleContext_Elicit() {
	r := specter.NewRouter("greeter", "1.0.0", specter.Logger(zerolog.Nop()))
	name := params.Must(params.Raw([]byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)))
	r.Tool("greet", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		res, _, err := c.Elicit("What is your name?", name, specter.InputKey("who"))
		if err != nil {
			return specter.Error(err) // ErrInputRequired on the 2026-07-28 wire
		}
		return specter.Reply("Hello, " + res["name"].(string) + "!")
	}, specter.Description("Greets the user by name"))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	defer r.Shutdown(context.Background())
	ctx := context.Background()
	answer := map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}

	// A session-era client answers the server's request on the stream.
	legacy := mcptest.NewClient(srv.URL)
	legacy.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	legacy.OnRequest = func(string, json.RawMessage) (any, *jsonrpc.Error) { return answer, nil }
	_, _ = legacy.Initialize(ctx, "2025-11-25")
	res, _, _ := legacy.CallTool(ctx, "greet", nil)
	fmt.Println("2025-11-25:", res.Content[0].(*mcp.TextContent).Text)

	// A 2026-07-28 client gets input_required, then retries with the answer.
	stateless := mcptest.NewStatelessClient(srv.URL)
	stateless.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	ask, _, _ := stateless.CallTool(ctx, "greet", nil)
	fmt.Println("2026-07-28:", ask.ResultType, ask.InputRequests["who"].Method)
	done, _, _ := stateless.CallTool(ctx, "greet", nil, mcptest.Retry(ask.RequestState, map[string]any{"who": answer}))
	fmt.Println("2026-07-28:", done.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 2025-11-25: Hello, Ada!
	// 2026-07-28: input_required elicitation/create
	// 2026-07-28: Hello, Ada!
}

// Notifications reach listening clients of both eras on every node; a
// targeted one reaches only one caller's sessions and streams.
func ExampleRouter_NotifyToolsChanged() {
	r := specter.NewRouter("app", "1.0.0", specter.Logger(zerolog.Nop()))
	defer r.Shutdown(context.Background())
	// After a user's plan changed, only that user's clients list tools again.
	r.NotifyToolsChanged(specter.ForPrincipal("user-42"))
	// Declaring a tool while serving notifies everyone by itself.
	r.Tool("new_tool", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("ok")
	}, specter.Description("Added at runtime"))
	fmt.Println(r.Sessions(), r.Listeners())
	// Output: 0 0
}

// A session follows an application topic; a Publish, on any node of the
// deployment, runs OnEvent for it, which tells the client on its GET
// stream.
func ExampleOnEvent() {
	r := specter.NewRouter("orders", "1.0.0", specter.Logger(zerolog.Nop()),
		specter.OnEvent(func(s *specter.Session, topic string, data json.RawMessage) {
			_ = s.Notify(mcp.NotificationResourceUpdated, map[string]string{"uri": "orders://" + topic})
		}))
	r.Tool("follow", func(p specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		if err := c.Session().Subscribe(p.String("order")); err != nil {
			return specter.Error(err)
		}
		return specter.Reply("following")
	}, specter.Description("Follows an order"), params.String("order", params.Required()))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	defer r.Shutdown(context.Background())
	ctx := context.Background()

	c := mcptest.NewClient(srv.URL)
	_, _ = c.Initialize(ctx, "2025-11-25")
	get, _ := c.Listen(ctx, "")
	defer get.Close()
	_, _, _ = c.CallTool(ctx, "follow", map[string]any{"order": "o-7"})
	_ = r.Publish("o-7", map[string]string{"status": "shipped"})
	m, _, _ := get.Next()
	fmt.Println(m.Method, string(m.Params))
	// Output: notifications/resources/updated {"uri":"orders://o-7"}
}
