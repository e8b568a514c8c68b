package specter

import (
	"context"
	"encoding/json"
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

// owner is who may see the tasks this request creates: its principal on
// the 2026-07-28 wire, its session in the session era.
func (x *exchange) owner() string {
	if x.sess != nil {
		return "s:" + x.sess.ID()
	}
	return "p:" + x.c.grant.principal
}

// startTask runs a tool's work as a task and answers with the task; a
// session's tasks end with it.
func (x *exchange) startTask(d *declaration, res Result) handlers.Outcome {
	base, sess := context.WithoutCancel(x.c.ctx), x.sess
	var notify func([]byte)
	if sess != nil {
		// A session's task ends with the session, not with its request.
		base, notify = (*sessionParent)(x.c), sess.Notify
	}
	created, err := x.r.tasks.Start(base, x.owner(), task.TTL(x.c.req.task, x.r.cfg.taskTTL), notify, &x.r.work,
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
	if err != nil {
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
