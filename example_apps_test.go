package specter_test

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/appview"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// A tool with a UI (MCP Apps): hosts that render MCP Apps show the page
// with the tool's result, and its view may call the app-only tool; other
// hosts read the text. The client reads what a host needs: the tool's UI,
// who may use each tool, and the page with its security metadata.
func ExampleRouter_UI() {
	r := specter.NewRouter("weather", "1.0.0", specter.Logger(zerolog.Nop()))
	defer r.Shutdown(context.Background())
	page := "<!DOCTYPE html><title>Forecast</title><p id=out></p>" + string(appview.ScriptTag()) + `<script>
const app = new McpApp({ name: "forecast", version: "1.0.0" });
app.on("toolresult", (r) => { out.textContent = r.structuredContent.city + ": " + r.structuredContent.high + "°"; });
app.connect();
</script>`
	r.UI("ui://weather/forecast", specter.HTML(page), specter.Description("The forecast, drawn"),
		specter.CSP(mcp.UICSP{ConnectDomains: []string{"https://api.weather.example"}}))
	r.Tool("forecast", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(map[string]any{"city": p.String("city"), "high": 21}) // structuredContent and its JSON as text
	}, specter.Description("The forecast for a city"), specter.UIResource("ui://weather/forecast"),
		params.String("city", params.Required()))
	r.Tool("refresh", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("refreshed")
	}, specter.Description("Refresh the forecast"), specter.UIResource("ui://weather/forecast"), specter.Visibility(mcp.VisibilityApp))

	ctx := context.Background()
	c, err := client.Connect(ctx, client.InMemory(r.Handler()), &client.Options{UI: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	var forecast mcp.Tool
	for tool, err := range c.Tools(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		ui := mcp.ToolUI(tool.Meta)
		fmt.Println(tool.Name, ui.ResourceURI, "for the model:", ui.VisibleTo(mcp.VisibilityModel))
		if tool.Name == "forecast" {
			forecast = tool
		}
	}
	app, err := c.ToolApp(ctx, forecast)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(app.URI, app.Meta.CSP.ConnectDomains)
	// Output:
	// forecast ui://weather/forecast for the model: true
	// refresh ui://weather/forecast for the model: false
	// ui://weather/forecast [https://api.weather.example]
}
