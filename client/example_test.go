package client_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// forecast is the structured content of the "forecast" tool.
type forecast struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

// weatherRouter is a Specter server with one tool that answers with
// structured content.
func weatherRouter() *specter.Router {
	r := specter.NewRouter("weather", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("forecast", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(forecast{City: p.String("city"), Celsius: 21.5})
	}, specter.Description("Tomorrow's forecast for a city"), params.String("city"),
		specter.OutputSchema(json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"}},"required":["city","celsius"]}`)))
	return r
}

// Connect to a server, here a Specter router served in process; over the
// network use &client.HTTPTransport{URL: ...}, and for a local command
// client.Command(name, args...).
func ExampleConnect() {
	r := weatherRouter()
	defer r.Shutdown(context.Background())
	ctx := context.Background()

	c, err := client.Connect(ctx, client.InMemory(r.Handler()), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	fmt.Println(c.Version(), c.ServerInfo().Name)

	for tool, err := range c.Tools(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(tool.Name+":", tool.Description)
	}
	res, err := c.CallTool(ctx, "forecast", map[string]any{"city": "Lyon"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 2026-07-28 weather
	// forecast: Tomorrow's forecast for a city
	// {"city":"Lyon","celsius":21.5}
}

// CallToolInto decodes a tool's structuredContent into a Go value, after
// checking it against the output schema the tool listed.
func ExampleCallToolInto() {
	r := weatherRouter()
	defer r.Shutdown(context.Background())
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InMemory(r.Handler()), &client.Options{Version: mcp.Version20251125})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.ListTools(ctx, ""); err != nil { // learns the output schemas
		fmt.Println(err)
		return
	}

	f, _, err := client.CallToolInto[forecast](ctx, c, "forecast", map[string]any{"city": "Oslo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.1f°C\n", f.City, f.Celsius)
	// Output:
	// Oslo: 21.5°C
}
