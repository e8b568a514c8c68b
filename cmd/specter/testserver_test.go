package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/stdio"
)

// testServerEnv, set, makes the test binary a stdio server of
// newWaitRouter, which reports on its standard error.
const testServerEnv = "SPECTER_CLI_TEST_SERVER"

// cancelledLine is what the server of newWaitRouter reports when the
// client cancels its wait tool.
const cancelledLine = "server: wait was cancelled by the client"

// newWaitRouter is a server with two tools: wait, which reports
// progress once and then waits for the client to cancel it, calling
// cancelled when that happens; and haiku, which asks the client's model
// (sampling).
func newWaitRouter(cancelled func()) *specter.Router {
	r := specter.NewRouter("wait-server", "1.0.0")
	r.Tool("wait", func(_ specter.Params, _ *specter.Request, _ *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			if err := s.Progress(0, 0, "waiting to be cancelled"); err != nil {
				return specter.Error(err)
			}
			<-s.Done()
			cancelled()
			return specter.Error(specter.NewToolError("cancelled"))
		})
	}, specter.Description("Wait until cancelled"))
	r.Tool("haiku", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		res, err := c.Sample(&mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{mcp.Text("Write a haiku about Go")}}},
			MaxTokens: 50,
		})
		if err != nil {
			// In 2026-07-28 this asks the client and runs again.
			return specter.Error(err)
		}
		return specter.Reply(res.Model + " wrote: " + contentText(res.Content[0]))
	}, specter.Description("Ask the client's model for a haiku"))
	r.Tool("survey", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		a, action, err := specter.Elicit[survey](c, "A short survey")
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(fmt.Sprintf("%s: %s %d %v", action, a.Color, a.Count, a.Subscribe))
	}, specter.Description("Ask three questions"))
	return r
}

// survey is the form of the survey tool: an enum, an integer with
// bounds and a default, a boolean with a default.
type survey struct {
	Color     string `json:"color" validate:"required,oneof=red green blue" description:"Your favourite colour"`
	Count     int    `json:"count" title:"How many" validate:"min=1,max=9" default:"3"`
	Subscribe bool   `json:"subscribe" default:"true"`
}

// serveTestServer serves newWaitRouter on stdin and stdout. Running
// requests are given a long drain when the input ends, longer than the
// client waits before killing the server: so the wait tool reports its
// end only when cancelled on the wire, not when the client hangs up.
func serveTestServer() int {
	r := newWaitRouter(func() { fmt.Fprintln(os.Stderr, cancelledLine) })
	if err := (&stdio.Server{Handler: r, Drain: 10 * time.Minute}).Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
