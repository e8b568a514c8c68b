package specter

import (
	"context"
	"sync"

	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/session"
)

// OnSessionStart runs when initialize creates a session, after connect,
// before the client gets its session id: it may find or create the
// application's data for the session (keyed by s.ID() or c.Principal())
// with s.Set. An error refuses the initialize with an internal error.
func OnSessionStart(f func(c *Context, s *Session) error) RouterOption {
	return routerOption(func(r *Router) { r.onStart = f })
}

// OnTerminate runs once when a session ends, on the node that ends it,
// with the reason (EndClient, EndTimeout, EndShutdown, EndError) and the
// session's data as it was.
func OnTerminate(f func(reason string, s *Session)) RouterOption {
	return routerOption(func(r *Router) { r.onTerminate = f })
}

// Why a session ended, as OnTerminate is told.
const (
	EndClient   = session.EndClient   // the client sent DELETE
	EndTimeout  = session.EndTimeout  // idle longer than the session timeout
	EndShutdown = session.EndShutdown // the router shut down
	EndError    = session.EndError    // the session could not go on (its shared state was lost)
)

// OnDisconnect runs when a client's connection ends while the work of
// its request (a NoReply) still runs. In a session the work goes on, for
// the client may resume; on the 2026-07-28 wire it is cancelled.
func OnDisconnect(f func(c *Context)) RouterOption {
	return routerOption(func(r *Router) { r.onDrop = f })
}

// watchDrop runs OnDisconnect if c's connection ends before stop.
func (r *Router) watchDrop(c *Context) (stop func() bool) {
	if r.onDrop == nil || c.http == nil {
		return func() bool { return true }
	}
	return context.AfterFunc(c.http.Context(), func() { _ = guard.Run(func() { r.onDrop(c) }) })
}

// Shutdown stops accepting new sessions, waits for Async work to finish
// (or ctx to end), then ends every session.
func (r *Router) Shutdown(ctx context.Context) error {
	r.closing.Store(true)
	err := waitFor(ctx, &r.work)
	r.cluster.Shutdown(EndShutdown)
	r.stopSub()
	r.t.Listeners.Stop()
	r.tasks.Stop()
	return err
}

// waitFor waits for wg, or for ctx to end first, whose error it returns
// then. The work goes on either way.
func waitFor(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
