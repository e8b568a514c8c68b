package specter_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// serve runs r on a loopback server and returns an initialized client.
func serve(r *specter.Router) (*mcptest.Client, func()) {
	srv := httptest.NewServer(r.Handler())
	c := mcptest.NewClient(srv.URL)
	if _, err := c.Initialize(context.Background(), "2025-11-25"); err != nil {
		panic(err)
	}
	return c, func() { _ = r.Shutdown(context.Background()); srv.Close() }
}

func ExampleRouter_Tool() {
	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("greet", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply("Hello, " + p.String("name") + "!")
	}, specter.Description("Greet someone by name"),
		params.String("name", params.Required(), params.Validate("min=1,max=64"), params.Description("Who to greet")))

	c, stop := serve(r)
	defer stop()
	res, _, _ := c.CallTool(context.Background(), "greet", map[string]any{"name": "Ada"})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	res, _, _ = c.CallTool(context.Background(), "greet", map[string]any{})
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Hello, Ada!
	// true invalid arguments: "name" is required
}

// GetStudy is a tool's params as a struct: its tags make the input schema
// and the validation.
type GetStudy struct {
	ID   string `json:"id" validate:"required,uuid4" description:"Study id"`
	Deep bool   `json:"deep,omitempty" description:"Include answers"`
}

func ExampleTool() {
	r := specter.NewRouter("studies", "1.0.0", specter.Logger(zerolog.Nop()))
	specter.Tool(r, "get_study", func(p GetStudy, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(map[string]any{"id": p.ID, "deep": p.Deep})
	}, specter.Description("Read a study"), specter.ReadOnly())

	c, stop := serve(r)
	defer stop()
	tools, _ := c.ListTools(context.Background())
	fmt.Println(string(tools[0].InputSchema))
	res, _, _ := c.CallTool(context.Background(), "get_study", map[string]any{"id": "0b6c4a6e-5d6a-4c43-9d2f-1c6c2a6f9d10"})
	fmt.Println(string(res.StructuredContent))
	// Output:
	// {"type":"object","properties":{"id":{"type":"string","description":"Study id","format":"uuid"},"deep":{"type":"boolean","description":"Include answers"}},"required":["id"]}
	// {"deep":false,"id":"0b6c4a6e-5d6a-4c43-9d2f-1c6c2a6f9d10"}
}

func ExampleNoReply() {
	r := specter.NewRouter("jobs", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Tool("build", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			for step := 1; step <= 3; step++ {
				_ = s.Progress(float64(step), 3, fmt.Sprintf("step %d", step))
				time.Sleep(10 * time.Millisecond)
			}
			return specter.Reply("built")
		})
	}, specter.Description("Build the project"))

	c, stop := serve(r)
	defer stop()
	resp, _ := c.Call(context.Background(), "tools/call", map[string]any{"name": "build", "_meta": map[string]any{"progressToken": "b1"}})
	for _, n := range resp.Notifications {
		fmt.Println(n.Method, string(n.Params))
	}
	fmt.Println(string(resp.Result))
	// Output:
	// notifications/progress {"progressToken":"b1","progress":1,"total":3,"message":"step 1"}
	// notifications/progress {"progressToken":"b1","progress":2,"total":3,"message":"step 2"}
	// notifications/progress {"progressToken":"b1","progress":3,"total":3,"message":"step 3"}
	// {"content":[{"type":"text","text":"built"}]}
}

func ExampleRouter_Connect() {
	r := specter.NewRouter("app", "1.0.0", specter.Logger(zerolog.Nop()))
	for _, name := range []string{"search", "export"} {
		r.Tool(name, func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.Reply("ok")
		}, specter.Description("The "+name+" tool"))
	}
	r.Connect(func(c *specter.Context) error {
		switch c.HTTPRequest().Header.Get("Authorization") {
		case "Bearer basic-key":
			c.SetPrincipal("user-1")
			c.AllowTools("search") // export is hidden from this caller, and refused
		case "Bearer ultra-key":
			c.SetPrincipal("user-2")
		default:
			return specter.Unauthorized("a bearer key is required")
		}
		return nil
	})

	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	defer r.Shutdown(context.Background())
	for _, key := range []string{"basic-key", "ultra-key"} {
		c := mcptest.NewClient(srv.URL)
		c.Header.Set("Authorization", "Bearer "+key)
		_, _ = c.Initialize(context.Background(), "2025-11-25")
		tools, _ := c.ListTools(context.Background())
		fmt.Println(key, len(tools))
	}
	_, err := mcptest.NewClient(srv.URL).Initialize(context.Background(), "2025-11-25")
	fmt.Println(err)
	// Output:
	// basic-key 1
	// ultra-key 2
	// jsonrpc: Unauthorized: a bearer key is required (-32600)
}

func ExampleRouter_Resource() {
	r := specter.NewRouter("studies", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Resource("my_app://studies/:id", func(p specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.Reply(map[string]string{"id": p.String("id"), "title": "Sleep and memory"})
	}, specter.Description("Read a study"), specter.MIMEType("application/json"))

	uri, _ := r.ResourceURI("my_app://studies/:id", map[string]any{"id": 42})
	c, stop := serve(r)
	defer stop()
	resp, _ := c.Call(context.Background(), "resources/read", map[string]string{"uri": uri})
	var res mcp.ReadResourceResult
	_ = resp.Decode(&res)
	fmt.Println(res.Contents[0].URI, *res.Contents[0].Text)
	// Output:
	// my_app://studies/42 {"id":"42","title":"Sleep and memory"}
}

func ExampleRouter_Mount() {
	r := specter.NewRouter("app", "1.0.0")
	r.Tool("ping_db", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("ok")
	}, specter.Description("Check the database"))

	e := echo.New()
	// Group middleware (authentication, logging, rate limits) runs before
	// the router's connect step.
	api := e.Group("/mcp", func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set("tenant", c.Request().Header.Get("X-Tenant"))
			return next(c)
		}
	})
	r.Mount(api)
	fmt.Println(len(e.Routes()) > 0)
	// Output: true
}
