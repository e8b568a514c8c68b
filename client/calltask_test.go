package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// TestCallToolAsTask: CallTool runs a tool that requires a task as one,
// and one that allows a task as one when asked (AsTask), in both eras,
// without Options.Tasks; the task's question is answered on the way, and
// a caller that gives up cancels the task.
func TestCallToolAsTask(t *testing.T) {
	for _, version := range []string{"", mcp.Version20251125} {
		t.Run("version="+version, func(t *testing.T) {
			stopped := make(chan struct{})
			r := taskRouter(t, stopped)
			r.Tool("maybe", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
				return specter.NoReply(func(*specter.Stream) specter.Result { return specter.Reply("done") })
			}, specter.Description("Runs as a task when asked"), specter.Tasks(specter.TaskOptional))
			// polls counts the tasks/get requests: a call made a task is
			// polled.
			var polls atomic.Int32
			polled := make(chan struct{}, 1)
			counting := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				body, _ := io.ReadAll(req.Body)
				if bytes.Contains(body, []byte(`"method":"tasks/get"`)) {
					polls.Add(1)
					select {
					case polled <- struct{}{}:
					default:
					}
				}
				req.Body = io.NopCloser(bytes.NewReader(body))
				r.Handler().ServeHTTP(w, req)
			})
			c := connect(t, client.InMemory(counting), handlers(&client.Options{Version: version}))
			ctx := t.Context()
			if _, err := c.ListTools(ctx, ""); err != nil {
				t.Fatal(err)
			}
			res, err := c.CallTool(ctx, "deploy", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != "deployed by Ada" {
				t.Errorf("deploy: %q", got)
			}
			for _, asTask := range []bool{false, true} {
				var o []client.CallOption
				if asTask {
					o = append(o, client.AsTask())
				}
				before := polls.Load()
				res, err := c.CallTool(ctx, "maybe", nil, o...)
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "done" {
					t.Errorf("maybe (AsTask %v): %q", asTask, got)
				}
				if polled := polls.Load() > before; polled != asTask {
					t.Errorf("maybe (AsTask %v): polled %v", asTask, polled)
				}
			}
			// Give up on a task once it runs (it was polled): the
			// server hears that it is cancelled.
			call, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			select {
			case <-polled:
			default:
			}
			go func() {
				_, err := c.CallTool(call, "hang", nil)
				done <- err
			}()
			<-polled
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("hang: %v, want context.Canceled", err)
			}
			<-stopped
		})
	}
}
