package specter_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Middleware wraps every call: here an audit log around the router, and
// an admin check on a group of declarations that share one Use option.
func ExampleRouter_Use() {
	r := specter.NewRouter("ops", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Use(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			start := time.Now()
			res := next(req, c)
			_ = time.Since(start) // log req.Declaration.Name, res.Err(), the duration …
			fmt.Printf("audit: %s %s\n", req.Declaration.Kind, req.Declaration.Name)
			return res
		}
	})
	adminOnly := specter.Use(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			if c.HTTPRequest().Header.Get("X-Role") != "admin" {
				return specter.Error(jsonrpc.Errorf(specter.CodeForbidden, "Forbidden: %s is for admins", req.Declaration.Name))
			}
			return next(req, c)
		}
	})
	r.Tool("restart", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.Reply("restarted")
	}, specter.Description("Restart the service"), specter.Destructive(true), adminOnly)

	c, stop := serve(r)
	defer stop()
	_, _, err := c.CallTool(context.Background(), "restart", nil)
	fmt.Println(err)
	c.Header.Set("X-Role", "admin")
	res, _, _ := c.CallTool(context.Background(), "restart", nil)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// audit: tool restart
	// jsonrpc: Forbidden: restart is for admins (-32003)
	// audit: tool restart
	// restarted
}

// Result.Then decorates a reply, also the one a NoReply's work sends later.
func ExampleResult_Then() {
	r := specter.NewRouter("notes", "1.0.0", specter.Logger(zerolog.Nop()))
	r.Use(func(next specter.Call) specter.Call {
		return func(req *specter.Request, c *specter.Context) specter.Result {
			return next(req, c).Then(func(res specter.Result) specter.Result {
				if s, ok := res.Value().(string); ok {
					return specter.Reply(s + " (checked)")
				}
				return res
			})
		}
	})
	r.Tool("report", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result { return specter.Reply("all green") })
	}, specter.Description("Build a report"))

	c, stop := serve(r)
	defer stop()
	res, _, _ := c.CallTool(context.Background(), "report", nil)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: all green (checked)
}
