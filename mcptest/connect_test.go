package mcptest

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
)

// TestConnect reaches a router in each era through the full client,
// server requests included.
func TestConnect(t *testing.T) {
	r := specter.NewRouter("app", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("greet", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			v, _, err := s.Elicit("Name?", params.Must(params.Raw([]byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`))))
			if err != nil {
				return specter.Error(err)
			}
			return specter.Reply("Hello, " + v.String("name"))
		})
	}, specter.Description("Greets whoever answers"))
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	for _, version := range []string{mcp.Version20260728, mcp.Version20251125} {
		t.Run(version, func(t *testing.T) {
			c := Connect(t, r.Handler(), &client.Options{Version: version,
				Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				}})
			if c.Version() != version {
				t.Fatalf("version %s", c.Version())
			}
			res, err := c.CallTool(t.Context(), "greet", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != "Hello, Ada" {
				t.Errorf("got %q", got)
			}
		})
	}
}
