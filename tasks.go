package specter

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/catalog"
	"github.com/specter-mcp/specter/internal/task"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// TasksExtension is the identifier of the MCP tasks extension (SEP-2663).
const TasksExtension = task.Extension

// TaskSupport says whether a tool may run as a task.
type TaskSupport uint8

// Task support levels.
const (
	// TaskNone: the tool always answers within its request (default).
	TaskNone TaskSupport = iota
	// TaskOptional: when the client asks for a task, the work of a
	// NoReply becomes a task the client polls.
	TaskOptional
	// TaskRequired: the tool runs only as a task; other calls fail (-32021
	// on the 2026-07-28 wire, -32601 in a session, as each revision says).
	TaskRequired
)

// taskSupports spells each TaskSupport as execution.taskSupport does.
var taskSupports = [...]string{"", task.Optional, task.Required}

// Tasks sets a tool's task support. A task is what the work of a NoReply
// becomes when the client asks for one: on the 2026-07-28 wire by
// declaring the tasks extension, in a session of revision 2025-11-25 by
// a tools/call with a task member. The client gets a task id at once and
// polls it (tasks/get), on any node of the deployment; input the work
// asks for (Elicit, Sample, ListRoots) goes through the task.
func Tasks(support TaskSupport) DeclOption {
	return declOption(func(d *declaration) { d.tasks = support })
}

// hasTaskTools reports whether a tool of cat may run as a task.
func hasTaskTools(cat *catalog.Catalog[*declaration]) bool {
	return slices.ContainsFunc(cat.Tools, func(d *declaration) bool { return d.tasks != TaskNone })
}

// tasksDeclared reports whether this request asks for a task.
func (x *exchange) tasksDeclared() bool {
	if !x.modern() {
		return x.c.req.task != nil && x.c.req.Version >= mcp.Version20251125
	}
	_, ok := x.c.req.ClientCapabilities.Extensions[TasksExtension]
	return ok
}

// AnonymousTasks lets callers without a principal run tools as tasks on
// the 2026-07-28 wire. It is off by default: there a task outlives its
// request, and no session ties it to its caller, so a server that knows
// nothing of a caller cannot bind the task to it as the tasks extension
// asks. Without it, such a caller's TaskOptional tools answer within the
// request (the server decides whether to make a task) and its
// TaskRequired tools are refused with -32600. With it, an anonymous
// caller's tasks belong to its client address, as the per-principal caps
// count it (an IPv6 /64 as one; behind a proxy set Echo's IPExtractor, or
// every anonymous caller shares the proxy's): another address cannot
// read, answer or cancel them even with the id, though callers behind one
// address can. Session-era tasks belong to their session either way.
func AnonymousTasks() RouterOption {
	return routerOption(func(r *Router) { r.cfg.anonymousTasks = true })
}

// taskable reports whether this request's work may become a task: it
// asks for one, and its tasks can be bound to its caller.
func (x *exchange) taskable() bool {
	return x.tasksDeclared() && (x.sess != nil || x.c.grant.principal != "" || x.r.cfg.anonymousTasks)
}

// owner is who may see the tasks this request creates: its session in
// the session era; on the 2026-07-28 wire its principal, or, anonymous,
// its client address (see AnonymousTasks).
func (x *exchange) owner() string {
	switch {
	case x.sess != nil:
		return "s:" + x.sess.ID()
	case x.c.grant.principal != "":
		return "p:" + x.c.grant.principal
	}
	return "a:" + host{x.r}.Holder(x.c)
}

// startTask runs a tool's work as a task and answers with the task; a
// session's tasks end with it.
func (x *exchange) startTask(d *declaration, res Result) handlers.Outcome {
	base, sess := context.WithoutCancel(x.c.ctx), x.sess
	var notify func([]byte)
	if sess != nil {
		base, notify = sess.Context(), sess.Notify
	}
	created, err := x.r.tasks.Start(base, x.owner(), host{x.r}.Holder(x.c), task.TTL(x.c.req.task, x.r.cfg.taskTTL), notify, &x.r.work,
		func(ctx context.Context, t *task.Task) (json.RawMessage, *jsonrpc.Error) {
			tx, c := *x, *x.c
			tx.c, c.ctx = &c, ctx
			c.stream = &Stream{ctx: ctx, ob: x.ob, req: x.c.req, task: t}
			if sess != nil {
				c.stream.ob, c.stream.sess, c.stream.timeout = sess.GetStream(), sess, x.r.cfg.stateTTL
			}
			if res.kind == resultNoReply {
				res = x.work(res.work, c.stream)
			}
			return tx.outcome(tx.finish(d, res))
		})
	if je := (*jsonrpc.Error)(nil); errors.As(err, &je) {
		return handlers.Failed(je) // over the caller's limit
	} else if err != nil {
		return handlers.Failed(x.internal(err))
	}
	return handlers.Answer(created.Reply(sess != nil))
}

// Task answers tasks/get, tasks/result and tasks/cancel in a session;
// tasks/result waits for the task to end.
func (x *exchange) Task(method, id string) handlers.Outcome {
	answer := func() handlers.Outcome {
		body, err := x.r.tasks.Answer(x.c.ctx, method, id, x.owner())
		return handlers.Outcome{Result: body, Err: err}
	}
	if method != mcp.MethodTasksResult {
		return answer()
	}
	go func() { x.respond(answer(), true) }()
	return handlers.Outcome{Pending: true}
}

// Tasks lists the tasks of the session (tasks/list).
func (x *exchange) Tasks() ([]*mcp.SessionTask, error) { return x.r.tasks.Wires(x.owner()) }
