package gateway_test

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/gateway"
	"github.com/specter-mcp/specter/mcp"
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
