package specter_test

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
)

// Weather is a tool's result type: Output derives its outputSchema.
type Weather struct {
	City    string  `json:"city" validate:"required" description:"City name"`
	Celsius float64 `json:"celsius" validate:"min=-90,max=60"`
}

func ExampleOutput() {
	r := specter.NewRouter("weather", "1.0.0", specter.Logger(zerolog.Nop()))
	specter.Tool(r, "forecast", func(p GetStudy, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(Weather{City: "Oslo", Celsius: 4})
	}, specter.Description("Today's weather"), specter.Output[Weather]())

	c, stop := serve(r)
	defer stop()
	tools, _ := c.ListTools(context.Background())
	fmt.Println(string(tools[0].OutputSchema))
	res, _, _ := c.CallTool(context.Background(), "forecast", map[string]any{"id": "0b6c4a6e-5d6a-4c43-9d2f-1c6c2a6f9d10"})
	fmt.Println(string(res.StructuredContent))
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"City name"},"celsius":{"type":"number","minimum":-90,"maximum":60}},"required":["city"]}
	// {"city":"Oslo","celsius":4}
}
