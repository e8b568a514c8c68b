package specter

import (
	"context"
	"sync"

	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/jsonrpc"
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
	r.work.close()
	err := waitFor(ctx, &r.work.wg)
	r.cluster.Shutdown(EndShutdown)
	if r.lease != nil {
		r.lease.Stop()
	}
	r.stopSub()
	r.t.Listeners.Stop()
	r.tasks.Stop()
	return err
}

// workGroup is the work that runs past its request. sync.WaitGroup forbids
// an Add that races Wait, so starting work and beginning shutdown take one
// lock, and work that would start after shutdown began is refused.
type workGroup struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// begin counts one more piece of work, or reports false once shutdown
// began.
func (g *workGroup) begin() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

func (g *workGroup) done() { g.wg.Done() }

// close refuses all work from now on; what began goes on.
func (g *workGroup) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// errShuttingDown answers a request whose work would start after shutdown
// began.
var errShuttingDown = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Service Unavailable: the server is shutting down")

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
