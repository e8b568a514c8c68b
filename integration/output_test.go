package integration

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
)

type forecastOut struct {
	City    string  `json:"city" validate:"required" description:"City name"`
	Celsius float64 `json:"celsius" validate:"min=-90,max=60" description:"Temperature"`
	Sky     string  `json:"sky,omitempty" validate:"omitempty,oneof=clear cloudy rain"`
}

func TestTypedOutputSchemaAndCheckedStructuredContent(t *testing.T) {
	var mu sync.Mutex
	var reported []string
	r := specter.NewRouter("t", "1", quiet, specter.OnError(func(_ context.Context, err error, _ *specter.Request) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err.Error())
	}))
	reply := func(v any) specter.Handler {
		return func(specter.Params, *specter.Request, *specter.Context) specter.Result { return specter.Reply(v) }
	}
	out := specter.Output[forecastOut]()
	r.Tool("forecast", reply(forecastOut{City: "Oslo", Celsius: 4, Sky: "rain"}), specter.Description("Weather"), out)
	r.Tool("too_hot", reply(forecastOut{City: "Oslo", Celsius: 99}), specter.Description("Weather"), out)
	r.Tool("wrong_type", reply(map[string]any{"city": "Oslo", "celsius": "warm"}), specter.Description("Weather"), out)
	r.Tool("text_only", reply("sunny"), specter.Description("Weather"), out)
	r.Tool("fails", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Error(specter.NewToolError("no such city"))
	}, specter.Description("Weather"), out)
	r.Tool("raw", reply(map[string]any{"n": 1.5}), specter.Description("Raw"),
		specter.OutputSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)))

	for _, ec := range bothEras(t, r) {
		t.Run(ec.name, func(t *testing.T) {
			mu.Lock()
			reported = nil
			mu.Unlock()
			tools, err := ec.c.ListTools(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			want := `{"type":"object","properties":{"city":{"type":"string","description":"City name"},"celsius":{"type":"number","description":"Temperature","minimum":-90,"maximum":60},"sky":{"type":"string","enum":["clear","cloudy","rain"]}},"required":["city"]}`
			if got := string(tools[0].OutputSchema); tools[0].Name != "forecast" || got != want {
				t.Errorf("%s outputSchema\n got %s\nwant %s", tools[0].Name, got, want)
			}
			res, _, err := ec.c.CallTool(ctx(t), "forecast", nil)
			if err != nil || res.IsError || string(res.StructuredContent) != `{"city":"Oslo","celsius":4,"sky":"rain"}` {
				t.Fatalf("forecast: %+v %v", res, err)
			}
			res, _, err = ec.c.CallTool(ctx(t), "fails", nil)
			if err != nil || !res.IsError {
				t.Fatalf("a ToolError is answered as one, unchecked: %+v %v", res, err)
			}
			for name, detail := range map[string]string{
				"too_hot":    `"celsius" must be 60 or less`,
				"wrong_type": `celsius`,
				"text_only":  "has no structuredContent",
				"raw":        "structuredContent does not match",
			} {
				_, _, err := ec.c.CallTool(ctx(t), name, nil)
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || je.Message != "Internal error" {
					t.Errorf("%s: got %v, want a bare internal error", name, err)
				}
				mu.Lock()
				found := false
				for _, r := range reported {
					found = found || (strings.Contains(r, `tool "`+name+`"`) && strings.Contains(r, detail))
				}
				mu.Unlock()
				if !found {
					t.Errorf("%s: the error reporter got %q, want a report naming it with %q", name, reported, detail)
				}
			}
		})
	}
}
