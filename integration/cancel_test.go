package integration

import (
	"context"
	"errors"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcptest"
)

// waitRouter has a tool that tells started when it runs and cancelled
// when its context ends, then ends.
func waitRouter(started, cancelled chan struct{}) *specter.Router {
	r := specter.NewRouter("t", "1", quiet)
	r.Tool("wait", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		started <- struct{}{}
		<-c.Done()
		cancelled <- struct{}{}
		return specter.Error(c.Err())
	}, specter.Description("Waits until cancelled"))
	return r
}

// TestCancelledCallEndsTheHandlerInBothEras: a session-era call cancelled
// with notifications/cancelled, and a 2026-07-28 call whose stream the
// client closes, end the handler's context. mcptest hands out the id of a
// session-era call before it is answered (NewID, CallID) for Cancel, and
// the cancelled call returns ErrCancelled; on the 2026-07-28 wire it
// returns the error of the context that was cancelled.
func TestCancelledCallEndsTheHandlerInBothEras(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	e := newEnv(t, waitRouter(started, cancelled))

	c := e.session(nil, "2025-11-25")
	id := c.NewID()
	answered := make(chan error, 1)
	go func() {
		_, err := c.CallID(ctx(t), id, "tools/call", map[string]any{"name": "wait"})
		answered <- err
	}()
	<-started
	if err := c.Cancel(ctx(t), id, "the user gave up"); err != nil {
		t.Fatal(err)
	}
	<-cancelled
	if err := <-answered; !errors.Is(err, mcptest.ErrCancelled) {
		t.Errorf("session: the cancelled call returned %v, want ErrCancelled", err)
	}

	m := e.stateless()
	cx, cancel := context.WithCancel(ctx(t))
	go func() {
		_, _, err := m.CallTool(cx, "wait", nil)
		answered <- err
	}()
	<-started
	cancel()
	<-cancelled
	if err := <-answered; !errors.Is(err, context.Canceled) {
		t.Errorf("2026-07-28: the cancelled call returned %v, want context.Canceled", err)
	}
}
