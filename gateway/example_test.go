package gateway_test

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/client/oauth"
	"github.com/specter-mcp/specter/gateway"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/transform"
)

// A Host over two servers, re-exported by a gateway router: its clients
// see "notes.add" and "search.find" as tools of one server.
func ExampleMount() {
	ctx := context.Background()
	serve := func(name, tool string) *specter.Router {
		r := specter.NewRouter(name, "1.0.0", specter.Logger(zerolog.Nop()))
		r.Tool(tool, func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply(name + " did " + tool)
		}, specter.Description("The "+tool+" tool"))
		return r
	}
	notes, search := serve("notes", "add"), serve("search", "find")
	defer notes.Shutdown(ctx)
	defer search.Shutdown(ctx)
	h, err := host.New(ctx, []host.Server{
		{Name: "notes", Transport: client.InMemory(notes.Handler())},
		{Name: "search", Transport: client.InMemory(search.Handler())}, // or &client.HTTPTransport{URL: ...}
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)

	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	defer gw.Shutdown(ctx)
	if err := gateway.Mount(ctx, h, gw); err != nil {
		fmt.Println(err)
		return
	}
	// Serve gw.Handler() (or gw.Mount on an Echo group); here a client in
	// process.
	c, err := client.Connect(ctx, client.InMemory(gw.Handler()), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	for tool := range c.Tools(ctx) {
		fmt.Println(tool.Name)
	}
	res, _ := c.CallTool(ctx, "search.find", nil)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Unordered output:
	// notes.add
	// search.find
	// search did find
}

// A gateway that re-exports a server's tools without a prefix, one of
// them reshaped: renamed, an argument renamed and another fixed.
func ExampleTransform() {
	ctx := context.Background()
	search := specter.NewRouter("search", "1.0.0", specter.Logger(zerolog.Nop()))
	defer search.Shutdown(ctx)
	search.Tool("query", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(fmt.Sprintf("%s in %s", p.String("q"), p.String("index")))
	}, specter.Description("Query an index"), params.String("q", params.Required()), params.String("index", params.Required()))
	h, err := host.New(ctx, []host.Server{{Name: "search", Transport: client.InMemory(search.Handler())}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)

	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	defer gw.Shutdown(ctx)
	err = gateway.Mount(ctx, h, gw, gateway.NoPrefix(), gateway.Transform("search", map[string]transform.Tool{
		"query": {Name: "find_docs", Description: "Find documentation pages", Args: map[string]transform.Arg{
			"q":     {Name: "text", Description: "What to look for"},
			"index": {Value: "docs"},
		}},
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.Connect(ctx, client.InMemory(gw.Handler()), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	for tool := range c.Tools(ctx) {
		fmt.Println(tool.Name, string(tool.InputSchema))
	}
	res, _ := c.CallTool(ctx, "find_docs", map[string]any{"text": "gateways"})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// find_docs {"properties":{"text":{"description":"What to look for","type":"string"}},"required":["text"],"type":"object"}
	// gateways in docs
}

// A gateway that reaches a server once per caller, with a token exchanged
// for each caller's at the server's authorization server: the server's
// own rights per user hold through the gateway.
func ExampleNew() {
	ctx := context.Background()
	gw := specter.NewRouter("gateway", "1.0.0", specter.Logger(zerolog.Nop()))
	defer gw.Shutdown(ctx)
	g, err := gateway.New(ctx, nil, gw, gateway.PerCaller("crm", gateway.CallerServer{
		URL:            "https://crm.example.com/mcp",
		Exchange:       &oauth.Client{ID: "gateway", Secret: "its secret"},
		Issuers:        []string{"https://login.example.com"},
		MaxConnections: 500,
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close(ctx)
	gw.Connect(func(c *specter.Context) error {
		// Authentication middleware (auth.JWT) ran before: the caller
		// sees the tools the CRM lists to it.
		return g.Connect(c)
	})
	// Serve gw behind auth.JWT: gw.Mount(e.Group("/mcp", auth.JWT(cfg))).
	fmt.Println("ready")
	// Output: ready
}
