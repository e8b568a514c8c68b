package specter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/lease"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
)

// EndDown is the reason given for work whose node died: its lease on the
// shared backplane lapsed, and another node ended the work (see
// OnNodeDown).
const EndDown = stream.Down

// NodeDown is the work of a node that died mid-work (a crash, kill -9, a
// lost machine), as the node that took it over ended it: each request got
// a JSON-RPC error on its stream, so that a client that resumes it on
// another node is told rather than kept waiting, and each task failed.
type NodeDown struct {
	Node     string        // the id of the node that died
	Reason   string        // EndDown
	Requests []LostRequest // the requests it was answering
	Tasks    []string      // the ids of the tasks whose work ran there
}

// LostRequest is a request whose node died before it answered.
type LostRequest struct {
	Session string
	ID      json.RawMessage
}

// OnNodeDown runs on the node that takes over the work of a node that
// died, once per dead node, after its requests and tasks were ended. Over
// an in-process backplane no node outlives another, and it never runs.
//
// It hears of the work the dead node's lease recorded, which is written a
// moment (20 ms) after it changes. A request that began within that
// moment of the death is ended too, by the node a client resumes its
// stream on, with the same error, but no hook hears of it. A session's
// GET stream on the dead node is not work to end: a client that
// reconnects with Last-Event-ID gets what it buffered, a notice of what
// could not reach it, then live delivery from the node it reached.
func OnNodeDown(f func(d NodeDown)) RouterOption {
	return routerOption(func(r *Router) { r.onNodeDown = f })
}

// alive returns what tells whether a node holds its lease, on a shared
// backplane that offers leases; nil otherwise.
func (r *Router) alive() func(ctx context.Context, node string) (bool, error) {
	if leases, ok := r.bp.(backplane.Leases); ok && r.bp.Sharing() == backplane.Shared {
		return leases.Alive
	}
	return nil
}

// newLease makes this node's lease on a shared backplane that offers
// leases; Start (in NewRouter, once the router is whole) keeps it and
// takes over the work of nodes whose lease lapsed.
func (r *Router) newLease(node string) {
	leases, ok := r.bp.(backplane.Leases)
	if r.local || !ok {
		return
	}
	r.lease = lease.New(lease.Config{Leases: leases, Node: node, Down: r.nodeDown, Log: r.log, Timeout: stream.CallTimeout})
}

// nodeDown ends the work of a dead node: an error at the end of each of
// its requests' streams, and its tasks failed. It reports whether all of
// it ended; if not, the claim lapses and a node tries again.
func (r *Router) nodeDown(ctx context.Context, node string, work []string) bool {
	d := NodeDown{Node: node, Reason: EndDown}
	reason := fmt.Sprintf("the server node that ran it (%s) stopped: its lease on the backplane lapsed", node)
	streams := map[[2]string][]string{} // session, stream → request ids, in order
	var order [][2]string
	for _, e := range work {
		w, ok := lease.Parse(e)
		switch {
		case !ok:
		case w.Task != "":
			if _, err := r.tasks.Fail(ctx, w.Task, reason); err != nil {
				r.log.Warn().Err(err).Str("task", w.Task).Msg("specter: failing a dead node's task")
				return false
			}
			d.Tasks = append(d.Tasks, w.Task)
		default:
			k := [2]string{w.Session, w.Stream}
			if streams[k] == nil {
				order = append(order, k)
			}
			streams[k] = append(streams[k], w.ID)
			d.Requests = append(d.Requests, LostRequest{Session: w.Session, ID: json.RawMessage(w.ID)})
		}
	}
	for _, k := range order {
		if err := r.endStream(ctx, k[0], k[1], streams[k], reason); err != nil {
			r.log.Warn().Err(err).Str("session", k[0]).Str("stream", k[1]).Msg("specter: ending a dead node's stream")
			return false
		}
	}
	if r.onNodeDown != nil {
		_ = guard.Run(func() { r.onNodeDown(d) })
	}
	return true
}

// endStream ends a dead node's stream with an error for each request id
// (see stream.Node.End) and gives the ids back to the session.
func (r *Router) endStream(ctx context.Context, session, streamID string, ids []string, reason string) error {
	raw := make([]json.RawMessage, len(ids))
	keys := make([]string, len(ids))
	for i, id := range ids {
		raw[i] = json.RawMessage(id)
		keys[i] = jsonrpc.ID(id).Key()
	}
	if err := r.streams.End(ctx, session, streamID, raw, reason, 0); err != nil {
		return err
	}
	if _, _, err := r.bp.Admit(ctx, session, r.cfg.sessionTimeout, nil, keys); err != nil && !errors.Is(err, backplane.ErrNotFound) {
		return err
	}
	return nil
}
