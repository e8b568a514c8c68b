package echov5_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/echov5"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

func ExampleMount() {
	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("tenant", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.Reply(echov5.Context(c).Get("tenant"))
	}, specter.Description("Name the tenant"))

	e := echo.New()
	// The group's middleware runs before connect and the handlers.
	echov5.Mount(r, e.Group("/mcp", func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			c.Set("tenant", "acme")
			return next(c)
		}
	}))
	srv := httptest.NewServer(e)
	defer srv.Close()
	defer r.Shutdown(context.Background())

	c := mcptest.NewStatelessClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	res, _, err := c.CallTool(context.Background(), "tenant", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: acme
}
